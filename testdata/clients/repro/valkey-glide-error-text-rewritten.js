// repro: valkey-glide rewrites server error texts: "-WRONGTYPE Operation ..." becomes "WRONGTYPE: Operation ...", "-NOPROTO ..." becomes "NOPROTO: ...", "-ERR \r\n" and "-EXECABORT ..." get an "An error was signalled by the server: - ...Error: " prefix.
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide/resp2]
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide/resp3]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide/resp2]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide/resp3]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide/resp2]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide/resp3]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide/resp3]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide/resp2]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 LPUSH THROWN: RequestError: WRONGTYPE: Operation.*RESP2 EVAL THROWN: RequestError: An error was signalled by the server: - ResponseError: \n.*RESP2 HELLO 4 THROWN: RequestError: NOPROTO: unsupported.*RESP2 EXEC THROWN: ExecAbortError: An error was signalled by the server: - ExecAbortError: Transaction discarded.*RESP3 LPUSH THROWN: RequestError: WRONGTYPE: Operation.*RESP3 EXEC THROWN: ExecAbortError: An error was signalled
const util = require('util');
const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide');
Logger.init('off');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = (p) => GlideClient.createClient({ addresses: [{ host, port: +port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 });
// step: one call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.customCommand(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
(async () => {
  for (const p of [2, 3]) {
    const c = await client(p);
    await c.customCommand(['SET', 'repro:s', 'text']);
    console.log('wire: -WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n');
    await step('RESP' + p + ' LPUSH', c, ['LPUSH', 'repro:s', 'x']);
    console.log('wire: -ERR \\r\\n');
    await step('RESP' + p + ' EVAL', c, ['EVAL', "return redis.error_reply('')", '0']);
    console.log('wire: -NOPROTO unsupported protocol version\\r\\n');
    await step('RESP' + p + ' HELLO 4', c, ['HELLO', '4']);
    await c.customCommand(['MULTI']);
    await c.customCommand(['SET', 'repro:s', 'v']);
    await c.customCommand(['NOSUCHCMD']).catch(() => {});
    console.log('wire: -EXECABORT Transaction discarded because of previous errors.\\r\\n');
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
