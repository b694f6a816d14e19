// repro: valkey-glide rewrites server error texts: "-WRONGTYPE Operation ..." becomes "WRONGTYPE: Operation ...", "-NOPROTO ..." becomes "NOPROTO: ...", "-ERR \r\n" and "-EXECABORT ..." get an "An error was signalled by the server: - ...Error: " prefix.
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide-2.5.2/resp2]
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide-2.5.2/resp3]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide-2.5.2/resp2]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide-2.5.2/resp3]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/resp2]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/resp3]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide-2.5.2/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide-2.5.2/resp3]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide-2.5.2/resp2]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide-2.5.2/resp3]
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide-2.5.2/cluster/resp2]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide-2.5.2/cluster/resp2]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide-2.5.2/cluster/resp2]
// finds: errors/simple error WRONGTYPE from LPUSH on a string [valkey-glide-2.5.2/cluster/resp3]
// finds: errors/simple errors with an empty text and with an ERR code and no text [valkey-glide-2.5.2/cluster/resp3]
// finds: protocol-switch/NOPROTO error from HELLO 4, the protocol unchanged [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 LPUSH THROWN: RequestError: WRONGTYPE: Operation.*RESP2 EVAL THROWN: RequestError: An error was signalled by the server: - ResponseError: \n.*RESP2 HELLO 4 THROWN: RequestError: NOPROTO: unsupported.*RESP2 EXEC THROWN: ExecAbortError: An error was signalled by the server: - ExecAbortError: Transaction discarded.*RESP3 LPUSH THROWN: RequestError: WRONGTYPE: Operation.*RESP3 EXEC THROWN: ExecAbortError: An error was signalled
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await c.do(['SET', 'repro:s', 'text']);
    console.log('wire: -WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n');
    await step('RESP' + p + ' LPUSH', c, ['LPUSH', 'repro:s', 'x']);
    console.log('wire: -ERR \\r\\n');
    await step('RESP' + p + ' EVAL', c, ['EVAL', "return redis.error_reply('')", '0']);
    console.log('wire: -NOPROTO unsupported protocol version\\r\\n');
    await step('RESP' + p + ' HELLO 4', c, ['HELLO', '4']);
    await c.do(['MULTI']);
    await c.do(['SET', 'repro:s', 'v']);
    await c.do(['NOSUCHCMD']).catch(() => {});
    console.log('wire: -EXECABORT Transaction discarded because of previous errors.\\r\\n');
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    c.close();
  }
});
