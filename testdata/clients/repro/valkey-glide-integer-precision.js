// repro: valkey-glide returns RESP integers beyond 2^53 (":9007199254740993", ":9223372036854775806", ":-9007199254740993") as JavaScript numbers, rounding them.
// finds: faults/integers beyond 2^53 [valkey-glide/resp2]
// finds: faults/integers beyond 2^53 [valkey-glide/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 DECODED: 9007199254740992\n.*RESP2 DECODED: 9223372036854776000\n.*RESP2 DECODED: -9007199254740992\n.*RESP3 DECODED: 9007199254740992\n
const { GlideClient, ProtocolVersion } = require('@valkey/valkey-glide');
const [host, port] = process.argv[2].split(':');
setTimeout(() => { console.log('HANG: no result after 2s'); process.exit(0); }, 8000).unref();
(async () => {
  for (const [name, protocol] of [['RESP2', ProtocolVersion.RESP2], ['RESP3', ProtocolVersion.RESP3]]) {
    const c = await GlideClient.createClient({ addresses: [{ host, port: +port }], protocol });
    await c.customCommand(['SET', 'repro:int', '9007199254740992']);
    console.log('wire: :9007199254740993\\r\\n');
    console.log(name, 'DECODED:', await c.customCommand(['INCR', 'repro:int']));
    await c.customCommand(['DEL', 'repro:int']);
    console.log('wire: :9223372036854775806\\r\\n');
    console.log(name, 'DECODED:', await c.customCommand(['INCRBY', 'repro:int', '9223372036854775806']));
    await c.customCommand(['DEL', 'repro:int']);
    console.log('wire: :-9007199254740993\\r\\n');
    console.log(name, 'DECODED:', await c.customCommand(['INCRBY', 'repro:int', '-9007199254740993']));
    await c.customCommand(['DEL', 'repro:int']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log('THROWN:', String(e)); process.exit(0); });
