// repro: node-redis returns RESP integers beyond 2^53 (":9007199254740993", ":9223372036854775806", ":-9007199254740993") as JavaScript numbers, rounding them.
// finds: faults/integers beyond 2^53 [node-redis/resp2]
// finds: faults/integers beyond 2^53 [node-redis/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis/resp3]
// run: node
// expect: (?s)RESP2 DECODED: 9007199254740992\n.*RESP2 DECODED: 9223372036854776000\n.*RESP2 DECODED: -9007199254740992\n.*RESP3 DECODED: 9007199254740992\n.*RESP3 DECODED: 9223372036854776000\n.*RESP3 DECODED: -9007199254740992\n
const { createClient } = require('redis');
const [host, port] = process.argv[2].split(':');
const connect = async (p) => { const c = createClient({ socket: { host, port: +port, reconnectStrategy: false }, RESP: p }); await c.connect(); return { do: (a) => c.sendCommand(a), close: () => c.destroy() }; };
const protos = [2, 3];
setTimeout(() => { console.log('HANG: no result after 2s'); process.exit(0); }, 8000).unref();
(async () => {
  for (const p of protos) {
    const c = await connect(p);
    await c.do(['SET', 'repro:int', '9007199254740992']);
    console.log('wire: :9007199254740993\\r\\n');
    console.log('RESP' + p, 'DECODED:', await c.do(['INCR', 'repro:int']));
    await c.do(['DEL', 'repro:int']);
    console.log('wire: :9223372036854775806\\r\\n');
    console.log('RESP' + p, 'DECODED:', await c.do(['INCRBY', 'repro:int', '9223372036854775806']));
    await c.do(['DEL', 'repro:int']);
    console.log('wire: :-9007199254740993\\r\\n');
    console.log('RESP' + p, 'DECODED:', await c.do(['INCRBY', 'repro:int', '-9007199254740993']));
    await c.do(['DEL', 'repro:int']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log('THROWN:', String(e)); process.exit(0); });
