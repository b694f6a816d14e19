// repro: ioredis 6.0.0 and iovalkey 0.4.0 (RESP2) emit the invalidation message of CLIENT TRACKING ... REDIRECT, whose payload on __redis__:invalidate is an array of keys (*1 $7 repro:a), as a 'message' event whose message is a string ('repro:a'): the array is gone.
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-6.0.0/pubsub/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [iovalkey-0.4.0/pubsub/resp2]
// run: node
// expect: (?s)ioredis-6.0.0 'message' DECODED: \[ '__redis__:invalidate', 'repro:a' \]\n.*iovalkey-0.4.0 'message' DECODED: \[ '__redis__:invalidate', 'repro:a' \]\n
const { client, show, main } = require('./lib');
main(async () => {
  for (const [label, lib] of [['ioredis-6.0.0', 'ioredis'], ['iovalkey-0.4.0', 'iovalkey']]) {
    const s = await client(lib, 2);
    const t = await client(lib, 2);
    const w = await client(lib, 2);
    const got = [];
    s.raw.on('message', (ch, m) => got.push([ch, m]));
    const id = await s.do(['CLIENT', 'ID']);
    await s.raw.subscribe('__redis__:invalidate');
    await t.do(['CLIENT', 'TRACKING', 'on', 'REDIRECT', String(id)]);
    await t.do(['GET', 'repro:a']);
    console.log('wire: *3\\r\\n$7\\r\\nmessage\\r\\n$20\\r\\n__redis__:invalidate\\r\\n*1\\r\\n$7\\r\\nrepro:a\\r\\n');
    await w.do(['SET', 'repro:a', 'x']);
    await new Promise((r) => setTimeout(r, 300));
    for (const m of got) console.log(label, "'message' DECODED:", show(m));
    await w.do(['DEL', 'repro:a']);
    s.close(); t.close(); w.close();
  }
});
