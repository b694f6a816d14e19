// repro: ioredis's redis.call('GET', k) decodes a blob string of bytes that are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") as a JavaScript string with U+FFFD replacement characters, losing the bytes.
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [ioredis/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [ioredis/resp3]
// run: node
// expect: (?s)RESP2 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\).*RESP3 GET DECODED: '\\ufffd\\ufffd\\ufffd\\ufffd' \(4 UTF-16 units\)
const util = require('util');
const Redis = require('ioredis');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = async (p) => { const c = new Redis({ host, port: +port, protocol: p, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null }); c.on('error', () => {}); await c.connect(); return c; };
// step: one c.call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.call(args[0], ...args.slice(1)).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
process.on('uncaughtException', (e) => console.log('UNCAUGHT (thrown outside the call, in the library):', String(e)));
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
