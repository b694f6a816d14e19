// repro: ioredis (5.11.1, 6.0.0, with replyMapping resp3), node-redis (4.7.1, 5.12.1, 6.3.1, with typeMappings), iovalkey (RESP2 only) and valkey-glide return RESP integers beyond 2^53 (":9007199254740993", ":9223372036854775806", ":-9007199254740993") as JavaScript numbers, rounding them (redis-parser 3.0.0, under ioredis 5 and iovalkey, rounds 2^63-2 to 9223372036854778000).
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
// finds: faults/integers beyond 2^53 [ioredis-5.11.1/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-5.11.1/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-5.11.1/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-5.11.1/resp2]
// finds: faults/integers beyond 2^53 [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: faults/integers beyond 2^53 [node-redis-4.7.1/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-4.7.1/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-4.7.1/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-4.7.1/resp2]
// finds: faults/integers beyond 2^53 [node-redis-5.12.1/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-5.12.1/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-5.12.1/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-5.12.1/resp2]
// finds: faults/integers beyond 2^53 [node-redis-5.12.1/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-5.12.1/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-5.12.1/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-5.12.1/resp3]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1[typeMapping=Map+Buffer]/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1[typeMapping=Map+Buffer]/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1[typeMapping=Map+Buffer]/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1[typeMapping=Map+Buffer]/resp2]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: faults/integers beyond 2^53 [ioredis-6.0.0/cluster/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-6.0.0/cluster/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-6.0.0/cluster/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-6.0.0/cluster/resp2]
// finds: faults/integers beyond 2^53 [ioredis-6.0.0/cluster/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [ioredis-6.0.0/cluster/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [ioredis-6.0.0/cluster/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [ioredis-6.0.0/cluster/resp3]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1/cluster/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1/cluster/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1/cluster/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1/cluster/resp2]
// finds: faults/integers beyond 2^53 [node-redis-6.3.1/cluster/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [node-redis-6.3.1/cluster/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [node-redis-6.3.1/cluster/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [node-redis-6.3.1/cluster/resp3]
// finds: faults/integers beyond 2^53 [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/integers beyond 2^53 [valkey-glide-2.5.2/cluster/resp3]
// finds: numbers/integer 9007199254740993 (2^53+1) from INCR [valkey-glide-2.5.2/cluster/resp3]
// finds: numbers/integer 9223372036854775807 (2^63-1) from INCRBY, then an overflow error [valkey-glide-2.5.2/cluster/resp3]
// finds: numbers/integer -9223372036854775808 (-2^63) from DECRBY and negative integers [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)ioredis RESP2 INCR DECODED: 9007199254740992\n.*ioredis RESP2 INCRBY DECODED: 9223372036854776000\n.*ioredis RESP2 INCRBY negative DECODED: -9007199254740992\n.*ioredis RESP3 INCR DECODED: 9007199254740992\n.*ioredis RESP3 INCRBY DECODED: 9223372036854776000\n.*ioredis RESP3 INCRBY negative DECODED: -9007199254740992\n.*node-redis RESP2 INCR DECODED: 9007199254740992\n.*node-redis RESP2 INCRBY DECODED: 9223372036854776000\n.*node-redis RESP2 INCRBY negative DECODED: -9007199254740992\n.*node-redis RESP3 INCR DECODED: 9007199254740992\n.*node-redis RESP3 INCRBY DECODED: 9223372036854776000\n.*node-redis RESP3 INCRBY negative DECODED: -9007199254740992\n.*iovalkey RESP2 INCR DECODED: 9007199254740992\n.*iovalkey RESP2 INCRBY DECODED: 9223372036854778000\n.*iovalkey RESP2 INCRBY negative DECODED: -9007199254740992\n.*valkey-glide RESP2 INCR DECODED: 9007199254740992\n.*valkey-glide RESP2 INCRBY DECODED: 9223372036854776000\n.*valkey-glide RESP2 INCRBY negative DECODED: -9007199254740992\n.*valkey-glide RESP3 INCR DECODED: 9007199254740992\n.*valkey-glide RESP3 INCRBY DECODED: 9223372036854776000\n.*valkey-glide RESP3 INCRBY negative DECODED: -9007199254740992\n.*ioredis-5.11.1 RESP2 INCR DECODED: 9007199254740992\n.*ioredis-5.11.1 RESP2 INCRBY DECODED: 9223372036854778000\n.*ioredis-5.11.1 RESP2 INCRBY negative DECODED: -9007199254740992\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 INCR DECODED: 9007199254740992\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 INCRBY DECODED: 9223372036854776000\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 INCRBY negative DECODED: -9007199254740992\n.*node-redis-4.7.1 RESP2 INCR DECODED: 9007199254740992\n.*node-redis-4.7.1 RESP2 INCRBY DECODED: 9223372036854776000\n.*node-redis-4.7.1 RESP2 INCRBY negative DECODED: -9007199254740992\n.*node-redis-5.12.1 RESP2 INCR DECODED: 9007199254740992\n.*node-redis-5.12.1 RESP2 INCRBY DECODED: 9223372036854776000\n.*node-redis-5.12.1 RESP2 INCRBY negative DECODED: -9007199254740992\n.*node-redis-5.12.1 RESP3 INCR DECODED: 9007199254740992\n.*node-redis-5.12.1 RESP3 INCRBY DECODED: 9223372036854776000\n.*node-redis-5.12.1 RESP3 INCRBY negative DECODED: -9007199254740992\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP2 INCR DECODED: 9007199254740992\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP2 INCRBY DECODED: 9223372036854776000\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP2 INCRBY negative DECODED: -9007199254740992\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP3 INCR DECODED: 9007199254740992\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP3 INCRBY DECODED: 9223372036854776000\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP3 INCRBY negative DECODED: -9007199254740992\n.*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 INCR DECODED: 9007199254740992\n.*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 INCRBY DECODED: 9223372036854776000\n.*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 INCRBY negative DECODED: -9007199254740992\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const [label, lib, protos, opts] of [['ioredis', 'ioredis', [2, 3]], ['node-redis', 'node-redis', [2, 3]], ['iovalkey', 'iovalkey', [2]], ['valkey-glide', 'valkey-glide', [2, 3]],
    // The other versions and options: the same rounding.
    ['ioredis-5.11.1', 'ioredis-5', [2]], ['ioredis-6.0.0[replyMapping=resp3]', 'ioredis', [3], { options: { replyMapping: 'resp3' } }],
    ['node-redis-4.7.1', 'node-redis-4', [2]], ['node-redis-5.12.1', 'node-redis-5', [2, 3]],
    ['node-redis-6.3.1[typeMapping=Map+Buffer]', 'node-redis', [2, 3], { typeMapping: { MAP: Map, BLOB_STRING: Buffer } }],
    ['node-redis-6.3.1[typeMapping=Set+String]', 'node-redis', [3], { typeMapping: { SET: Set, DOUBLE: String, BIG_NUMBER: String } }]]) {
    for (const p of protos) {
      const c = await client(lib, p, opts);
      const name = label + ' RESP' + p;
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
