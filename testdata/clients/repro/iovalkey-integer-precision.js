// repro: iovalkey returns RESP integers beyond 2^53 (":9007199254740993", ":9223372036854775806", ":-9007199254740993") as JavaScript numbers, rounding them.
// finds: faults/integers beyond 2^53 [iovalkey/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [iovalkey/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [iovalkey/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [iovalkey/resp2]
// run: node
// expect: (?s)RESP2 DECODED: 9007199254740992\n.*RESP2 DECODED: 9223372036854778000\n.*RESP2 DECODED: -9007199254740992\n
const Redis = require('iovalkey');
const [host, port] = process.argv[2].split(':');
const connect = async (p) => { const c = new Redis({ host, port: +port, lazyConnect: true, maxRetriesPerRequest: 0 }); await c.connect(); return { do: (a) => c.call(a[0], ...a.slice(1)), close: () => c.disconnect() }; };
const protos = [2];
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
