// repro: node-redis's client.sendCommand(['GET', k]) decodes a blob string of bytes that are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") as a JavaScript string with U+FFFD replacement characters, losing the bytes.
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [node-redis/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [node-redis/resp3]
// run: node
// expect: (?s)RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\)
const util = require('util');
const { createClient } = require('redis');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = async (p) => { const c = createClient({ socket: { host, port: +port, reconnectStrategy: false }, RESP: p }); c.on('error', () => {}); await c.connect(); return c; };
// step: one c.sendCommand with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.sendCommand(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
(async () => {
  for (const p of [2, 3]) {
    const c = await client(p);
    await step('SET', c, ['SET', 'repro:bin', Buffer.from([0xff, 0xfe, 0x80, 0xc3])]);
    console.log('wire: $4\\r\\n\\xff\\xfe\\x80\\xc3\\r\\n');
    const t = setTimeout(() => { console.log('HANG: no result after 2s'); process.exit(0); }, 2000);
    const v = await (c.call ? c.call('GET', 'repro:bin') : c.sendCommand(['GET', 'repro:bin']));
    clearTimeout(t);
    console.log('RESP' + p + ' GET DECODED:', JSON.stringify(v).replace(/"/g, "'").replace(/\ufffd/g, '\\ufffd'), '(' + v.length + ' UTF-16 units)');
    c.disconnect ? c.disconnect() : c.destroy();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
