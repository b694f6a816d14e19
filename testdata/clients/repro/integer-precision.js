// repro: ioredis, node-redis, iovalkey (RESP2 only) and valkey-glide return RESP integers beyond 2^53 (":9007199254740993", ":9223372036854775806", ":-9007199254740993") as JavaScript numbers, rounding them.
// finds: faults/integers beyond 2^53 [ioredis-6.0.0/resp2]
// finds: faults/integers beyond 2^53 [ioredis-6.0.0/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-6.0.0/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-6.0.0/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-6.0.0/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-6.0.0/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-6.0.0/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-6.0.0/resp3]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1/resp2]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1/resp3]
// finds: faults/integers beyond 2^53 [iovalkey-0.4.0/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [iovalkey-0.4.0/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [iovalkey-0.4.0/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [iovalkey-0.4.0/resp2]
// finds: faults/integers beyond 2^53 [valkey-glide-2.5.2/resp2]
// finds: faults/integers beyond 2^53 [valkey-glide-2.5.2/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide-2.5.2/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide-2.5.2/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide-2.5.2/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide-2.5.2/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide-2.5.2/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide-2.5.2/resp3]
// run: node
// expect: (?s)ioredis RESP2 INCR DECODED: 9007199254740992\n.*ioredis RESP2 INCRBY DECODED: 9223372036854776000\n.*ioredis RESP2 INCRBY negative DECODED: -9007199254740992\n.*ioredis RESP3 INCR DECODED: 9007199254740992\n.*ioredis RESP3 INCRBY DECODED: 9223372036854776000\n.*ioredis RESP3 INCRBY negative DECODED: -9007199254740992\n.*node-redis RESP2 INCR DECODED: 9007199254740992\n.*node-redis RESP2 INCRBY DECODED: 9223372036854776000\n.*node-redis RESP2 INCRBY negative DECODED: -9007199254740992\n.*node-redis RESP3 INCR DECODED: 9007199254740992\n.*node-redis RESP3 INCRBY DECODED: 9223372036854776000\n.*node-redis RESP3 INCRBY negative DECODED: -9007199254740992\n.*iovalkey RESP2 INCR DECODED: 9007199254740992\n.*iovalkey RESP2 INCRBY DECODED: 9223372036854778000\n.*iovalkey RESP2 INCRBY negative DECODED: -9007199254740992\n.*valkey-glide RESP2 INCR DECODED: 9007199254740992\n.*valkey-glide RESP2 INCRBY DECODED: 9223372036854776000\n.*valkey-glide RESP2 INCRBY negative DECODED: -9007199254740992\n.*valkey-glide RESP3 INCR DECODED: 9007199254740992\n.*valkey-glide RESP3 INCRBY DECODED: 9223372036854776000\n.*valkey-glide RESP3 INCRBY negative DECODED: -9007199254740992\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const [lib, protos] of [['ioredis', [2, 3]], ['node-redis', [2, 3]], ['iovalkey', [2]], ['valkey-glide', [2, 3]]]) {
    for (const p of protos) {
      const c = await client(lib, p);
      const name = lib + ' RESP' + p;
      await c.do(['SET', 'repro:int', '9007199254740992']);
      console.log('wire: :9007199254740993\\r\\n');
      await step(name + ' INCR', c, ['INCR', 'repro:int']);
      await c.do(['DEL', 'repro:int']);
      console.log('wire: :9223372036854775806\\r\\n');
      await step(name + ' INCRBY', c, ['INCRBY', 'repro:int', '9223372036854775806']);
      await c.do(['DEL', 'repro:int']);
      console.log('wire: :-9007199254740993\\r\\n');
      await step(name + ' INCRBY negative', c, ['INCRBY', 'repro:int', '-9007199254740993']);
      await c.do(['DEL', 'repro:int']);
      c.close();
    }
  }
});
