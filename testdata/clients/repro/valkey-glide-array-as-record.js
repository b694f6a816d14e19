// repro: valkey-glide turns the arrays of XRANGE, XREAD (RESP2 nested arrays, RESP3 map of arrays) and ZRANGE WITHSCORES into GlideRecord key/value objects instead of the arrays on the wire.
// finds: aggregates/array of stream entries, each an id and a flat array of fields, from XRANGE [valkey-glide-2.5.2/resp2]
// finds: aggregates/array of stream entries, each an id and a flat array of fields, from XRANGE [valkey-glide-2.5.2/resp3]
// finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [valkey-glide-2.5.2/resp2]
// finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [valkey-glide-2.5.2/resp3]
// finds: aggregates/array of member-score pairs from ZRANGE WITHSCORES in RESP3, a flat array in RESP2 [valkey-glide-2.5.2/resp2]
// finds: aggregates/array of member-score pairs from ZRANGE WITHSCORES in RESP3, a flat array in RESP2 [valkey-glide-2.5.2/resp3]
// finds: aggregates/array of stream entries, each an id and a flat array of fields, from XRANGE [valkey-glide-2.5.2/cluster/resp2]
// finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: aggregates/array of member-score pairs from ZRANGE WITHSCORES in RESP3, a flat array in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: aggregates/array of stream entries, each an id and a flat array of fields, from XRANGE [valkey-glide-2.5.2/cluster/resp3]
// finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: aggregates/array of member-score pairs from ZRANGE WITHSCORES in RESP3, a flat array in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 XRANGE DECODED: \[ \{ key: '1-1', value: \[.*RESP2 XREAD DECODED: \[ \{ key: 'repro:s', value: \[ \{ key: '1-1'.*RESP2 ZRANGE DECODED: \[ \{ key: 'a', value: 1 \}.*RESP3 XRANGE DECODED: \[ \{ key: '1-1'.*RESP3 XREAD DECODED: \[ \{ key: 'repro:s', value: \[ \{ key: '1-1'.*RESP3 ZRANGE DECODED: \[ \{ key: 'a', value: 1 \}
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await c.do(['DEL', 'repro:s', 'repro:z']);
    await c.do(['XADD', 'repro:s', '1-1', 'f1', 'v1']);
    await c.do(['ZADD', 'repro:z', '1', 'a', '2', 'b']);
    console.log('wire: *1\\r\\n*2\\r\\n$3\\r\\n1-1\\r\\n*2\\r\\n$2\\r\\nf1\\r\\n$2\\r\\nv1\\r\\n');
    await step('RESP' + p + ' XRANGE', c, ['XRANGE', 'repro:s', '-', '+']);
    await step('RESP' + p + ' XREAD', c, ['XREAD', 'STREAMS', 'repro:s', '0']);
    console.log(p === 2 ? 'wire: *4\\r\\n$1\\r\\na\\r\\n$1\\r\\n1\\r\\n$1\\r\\nb\\r\\n$1\\r\\n2\\r\\n' : 'wire: *2\\r\\n*2\\r\\n$1\\r\\na\\r\\n,1\\r\\n*2\\r\\n$1\\r\\nb\\r\\n,2\\r\\n');
    await step('RESP' + p + ' ZRANGE', c, ['ZRANGE', 'repro:z', '0', '-1', 'WITHSCORES']);
    c.close();
  }
});
