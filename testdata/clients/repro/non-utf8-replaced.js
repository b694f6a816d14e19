// repro: ioredis's (5.11.1 and 6.0.0, also with replyMapping resp3 or stringNumbers) redis.call('GET', k), node-redis's (4.7.1, 5.12.1, 6.3.1, also with a typeMapping that leaves blob strings alone) client.sendCommand(['GET', k]) and iovalkey's redis.call('GET', k) (RESP2 only) decode a blob string of bytes that are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") as a JavaScript string with U+FFFD replacement characters, losing the bytes.
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-6.3.1/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-6.3.1/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-6.3.1/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-6.3.1/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [iovalkey-0.4.0/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [iovalkey-0.4.0/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-5.11.1/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-5.11.1/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-4.7.1/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-4.7.1/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-5.12.1/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-5.12.1/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-5.12.1/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-5.12.1/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0/cluster/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0/cluster/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis-6.0.0/cluster/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis-6.0.0/cluster/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-6.3.1/cluster/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-6.3.1/cluster/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis-6.3.1/cluster/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis-6.3.1/cluster/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-5.11.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-5.11.1/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [iovalkey-0.4.0/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [iovalkey-0.4.0/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-4.7.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-4.7.1/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-5.12.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-5.12.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-5.12.1/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-6.3.1/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-6.3.1/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0/cluster/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0/cluster/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [ioredis-6.0.0/cluster/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [ioredis-6.0.0/cluster/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [node-redis-6.3.1/cluster/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-6.3.1/cluster/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [node-redis-6.3.1/cluster/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [valkey-glide-2.5.2/cluster/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [valkey-glide-2.5.2/cluster/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [valkey-glide-2.5.2/cluster/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)ioredis RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*iovalkey RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis-5.11.1 RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis-6.0.0\[replyMapping=resp3\] RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis-6.0.0\[stringNumbers=true\] RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis-6.0.0\[stringNumbers=true\] RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis-4.7.1 RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis-5.12.1 RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis-5.12.1 RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\)
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
// The string with its replacement characters spelled out, and its length.
const fmt = (v) => JSON.stringify(v).replace(/"/g, "'").replace(/\ufffd/g, '\\ufffd') + ' (' + v.length + ' UTF-16 units)';
main(async () => {
  for (const [label, lib, protos, opts] of [['ioredis', 'ioredis', [2, 3]], ['node-redis', 'node-redis', [2, 3]], ['iovalkey', 'iovalkey', [2]],
    // The other versions and options: the same replacement (a typeMapping
    // of BLOB_STRING to Buffer keeps the bytes).
    ['ioredis-5.11.1', 'ioredis-5', [2]], ['ioredis-6.0.0[replyMapping=resp3]', 'ioredis', [3], { options: { replyMapping: 'resp3' } }],
    ['ioredis-6.0.0[stringNumbers=true]', 'ioredis', [2, 3], { options: { stringNumbers: true } }],
    ['node-redis-4.7.1', 'node-redis-4', [2]], ['node-redis-5.12.1', 'node-redis-5', [2, 3]],
    ['node-redis-6.3.1[typeMapping=Set+String]', 'node-redis', [3], { typeMapping: { SET: Set, DOUBLE: String, BIG_NUMBER: String } }]]) {
    for (const p of protos) {
      const c = await client(lib, p, opts);
      await step(label + ' RESP' + p + ' SET', c, ['SET', 'repro:bin', Buffer.from([0xff, 0xfe, 0x80, 0xc3])]);
      console.log('wire: $4\\r\\n\\xff\\xfe\\x80\\xc3\\r\\n');
      await step(label + ' RESP' + p + ' GET', c, ['GET', 'repro:bin'], fmt);
      c.close();
    }
  }
});
