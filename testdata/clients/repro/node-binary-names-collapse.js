// repro: node-redis 5.12.1 and 6.3.1 in RESP3 decode a hash's field names as strings with replacement characters, so two field names that are not UTF-8 (FF FE and FF FD) become the same key and HGETALL returns one field of two (the other's value lost), also with typeMapping { MAP: Map, BLOB_STRING: Buffer } (the values are Buffers, the keys are not); ioredis 6.0.0 with replyMapping 'resp3' does the same. node-redis 6.3.1 with typeMapping { SET: Set } returns a Set of one member for SMEMBERS of those two members. The flat arrays of RESP2 keep both (as equal strings).
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-5.12.1/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1/cluster/resp3]
// run: node
// expect: (?s)node-redis-5 RESP3 HGETALL DECODED: \[Object: null prototype\] \{ '\x{FFFD}\x{FFFD}': 'v2' \}\n.*node-redis RESP3 HGETALL DECODED: \{ '\x{FFFD}\x{FFFD}': 'v2' \}\n.*node-redis Map\+Buffer RESP3 HGETALL DECODED: Map\(1\) \{ '\x{FFFD}\x{FFFD}' => <Buffer 76 32> \}\n.*ioredis replyMapping RESP3 HGETALL DECODED: \{ '\x{FFFD}\x{FFFD}': 'v2' \}\n.*node-redis RESP2 HGETALL DECODED: \[ '\x{FFFD}\x{FFFD}', 'v1', '\x{FFFD}\x{FFFD}', 'v2' \]\n.*node-redis Set RESP3 SMEMBERS DECODED: Set\(1\) \{ '\x{FFFD}\x{FFFD}' \}\n
const { client, step, main } = require('./lib');
const ff = (b) => Buffer.from([0xff, b]);
main(async () => {
  const raw = await client('node-redis', 3);
  await raw.do(['DEL', 'repro:h', 'repro:s']);
  await raw.do(['HSET', 'repro:h', ff(0xfe), 'v1', ff(0xfd), 'v2']);
  await raw.do(['SADD', 'repro:s', ff(0xfe), ff(0xfd)]);
  raw.close();
  const hgetall = [
    ['node-redis-5', 3, {}, ''], ['node-redis', 3, {}, ''],
    ['node-redis', 3, { typeMapping: { MAP: Map, BLOB_STRING: Buffer } }, ' Map+Buffer'],
    ['ioredis', 3, { options: { replyMapping: 'resp3' } }, ' replyMapping'],
    ['node-redis', 2, {}, ''],
  ];
  console.log('wire: %2\\r\\n$2\\r\\n\\xff\\xfe\\r\\n$2\\r\\nv1\\r\\n$2\\r\\n\\xff\\xfd\\r\\n$2\\r\\nv2\\r\\n (RESP2: the same four as *4)');
  for (const [lib, p, opts, label] of hgetall) {
    const c = await client(lib, p, opts);
    await step(`${lib}${label} RESP${p} HGETALL`, c, ['HGETALL', 'repro:h']);
    c.close();
  }
  console.log('wire: ~2\\r\\n$2\\r\\n\\xff\\xfe\\r\\n$2\\r\\n\\xff\\xfd\\r\\n');
  const c = await client('node-redis', 3, { typeMapping: { SET: Set } });
  await step('node-redis Set RESP3 SMEMBERS', c, ['SMEMBERS', 'repro:s']);
  c.close();
});
