// repro: valkey-glide throws a decoding error for a blob string whose bytes are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") instead of returning the bytes.
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide-2.5.2/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide-2.5.2/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide-2.5.2/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide-2.5.2/resp3]
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide-2.5.2/cluster/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide-2.5.2/cluster/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide-2.5.2/cluster/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide-2.5.2/cluster/resp3]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [valkey-glide-2.5.2/resp2]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [valkey-glide-2.5.2/resp2]
// finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [valkey-glide-2.5.2/resp3]
// finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [valkey-glide-2.5.2/resp3]
// run: node
// expect: (?s)RESP2 GET THROWN: Error: Decoding error: 'Error: invalid utf-8.*RESP3 GET THROWN: Error: Decoding error: 'Error: invalid utf-8
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await c.do(['SET', 'repro:bin', Buffer.from([0xff, 0xfe, 0x80, 0xc3])]);
    console.log('wire: $4\\r\\n\\xff\\xfe\\x80\\xc3\\r\\n');
    await step('RESP' + p + ' GET', c, ['GET', 'repro:bin']);
    c.close();
  }
});
