// repro: valkey-glide answers a command queued inside MULTI ("+QUEUED\r\n") with a conversion error when the command is ZSCORE or HGETALL, because it converts the reply by command name.
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide/resp2]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide/resp3]
// finds: transactions/EXEC array holding a map of fields and a nested array [valkey-glide/resp2]
// finds: transactions/EXEC array holding a map of fields and a nested array [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 ZSCORE THROWN: RequestError: Response was of incompatible type.*RESP2 HGETALL THROWN: RequestError: Response couldn't be converted to map.*RESP3 ZSCORE THROWN: RequestError: Response was of incompatible type.*RESP3 HGETALL THROWN: RequestError: Response couldn't be converted to map
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
    await c.customCommand(['MULTI']);
    console.log('wire: +QUEUED\\r\\n');
    await step('RESP' + p + ' ZSCORE', c, ['ZSCORE', 'repro:z', 'm']);
    console.log('wire: +QUEUED\\r\\n');
    await step('RESP' + p + ' HGETALL', c, ['HGETALL', 'repro:h']);
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
