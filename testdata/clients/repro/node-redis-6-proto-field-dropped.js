// repro: node-redis 6.3.1 on RESP3 decodes a map into a plain {} (decodeMapAsObject: object[key] = value), so a hash field named "__proto__" ("%2\r\n$9\r\n__proto__\r\n$1\r\nx\r\n$1\r\nf\r\n$1\r\nv\r\n" from HGETALL) sets nothing and is lost, also with a typeMapping that leaves maps alone; node-redis 5.12.1 (Object.create(null)) and a typeMapping of MAP to Map keep it.
// finds: aggregates/map of a hash whose field is named __proto__ from HGETALL [node-redis-6.3.1/resp3]
// finds: aggregates/map of a hash whose field is named __proto__ from HGETALL [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: aggregates/map of a hash whose field is named __proto__ from HGETALL [node-redis-6.3.1/cluster/resp3]
// run: node
// expect: (?s)node-redis-6.3.1 RESP3 HGETALL DECODED: keys \[f\]\n.*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 HGETALL DECODED: keys \[f\]\n.*node-redis-5.12.1 RESP3 HGETALL DECODED: keys \[__proto__,f\]\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP3 HGETALL DECODED: keys \[__proto__,f\]\n
const { client, step, main } = require('./lib');
const keys = (v) => 'keys [' + (v instanceof Map ? [...v.keys()] : Object.keys(v)).join(',') + ']';
main(async () => {
  for (const [label, lib, opts] of [['node-redis-6.3.1', 'node-redis'], ['node-redis-6.3.1[typeMapping=Set+String]', 'node-redis', { typeMapping: { SET: Set, DOUBLE: String, BIG_NUMBER: String } }],
    ['node-redis-5.12.1', 'node-redis-5'], ['node-redis-6.3.1[typeMapping=Map+Buffer]', 'node-redis', { typeMapping: { MAP: Map, BLOB_STRING: Buffer } }]]) {
    const c = await client(lib, 3, opts);
    await c.do(['DEL', 'repro:h']);
    await c.do(['HSET', 'repro:h', '__proto__', 'x', 'f', 'v']);
    console.log('wire: %2\\r\\n$9\\r\\n__proto__\\r\\n$1\\r\\nx\\r\\n$1\\r\\nf\\r\\n$1\\r\\nv\\r\\n');
    await step(label + ' RESP3 HGETALL', c, ['HGETALL', 'repro:h'], keys);
    await c.do(['DEL', 'repro:h']);
    c.close();
  }
});
