// repro: valkey-glide (its Rust core's RESP parser) refuses 101 arrays nested (100 decode) with a ConnectionError ("Maximum recursion depth exceeded"), reconnecting, in RESP2 and RESP3; a server sends such a reply (a Lua table nested in tables from EVAL; Redis 8.6.3 returns up to 7,995 levels).
// finds: aggregates/arrays nested 150 deep from Lua [valkey-glide-2.5.2/resp2]
// finds: aggregates/arrays nested 150 deep from Lua [valkey-glide-2.5.2/resp3]
// run: node
// expect: (?s)RESP2 depth 100 DECODED: \[\[\[.*RESP2 depth 150 THROWN: ConnectionError: .*Maximum recursion depth exceeded.*RESP3 depth 150 THROWN: ConnectionError: .*Maximum recursion depth exceeded
const { client, step, main } = require('./lib');
const script = (depth) => `local t={1} for i=1,${depth - 1} do t={t} end return t`;
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    for (const depth of [100, 101, 150]) {
      console.log(`wire: ${depth} arrays around :1`);
      // The whole error: the parser's reason is on its third line.
      await c.do(['EVAL', script(depth), '0']).then((v) => console.log(`RESP${p} depth ${depth} DECODED:`, JSON.stringify(v).slice(0, 40)),
        (e) => console.log(`RESP${p} depth ${depth} THROWN:`, String(e).replace(/\n/g, ' | ')));
    }
    await step(`RESP${p} after`, c, ['ECHO', 'next']);
    c.close();
  }
});
