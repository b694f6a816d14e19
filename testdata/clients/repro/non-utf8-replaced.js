// repro: ioredis's redis.call('GET', k), node-redis's client.sendCommand(['GET', k]) and iovalkey's redis.call('GET', k) (RESP2 only) decode a blob string of bytes that are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") as a JavaScript string with U+FFFD replacement characters, losing the bytes.
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
// run: node
// expect: (?s)ioredis RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*ioredis RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*node-redis RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*iovalkey RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\)
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
// The string with its replacement characters spelled out, and its length.
const fmt = (v) => JSON.stringify(v).replace(/"/g, "'").replace(/\ufffd/g, '\\ufffd') + ' (' + v.length + ' UTF-16 units)';
main(async () => {
  for (const [lib, protos] of [['ioredis', [2, 3]], ['node-redis', [2, 3]], ['iovalkey', [2]]]) {
    for (const p of protos) {
      const c = await client(lib, p);
      await step(lib + ' RESP' + p + ' SET', c, ['SET', 'repro:bin', Buffer.from([0xff, 0xfe, 0x80, 0xc3])]);
      console.log('wire: $4\\r\\n\\xff\\xfe\\x80\\xc3\\r\\n');
      await step(lib + ' RESP' + p + ' GET', c, ['GET', 'repro:bin'], fmt);
      c.close();
    }
  }
});
