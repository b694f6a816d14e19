// repro: valkey-glide throws a decoding error for a blob string whose bytes are not UTF-8 ("$4\r\n\xff\xfe\x80\xc3\r\n") instead of returning the bytes.
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide/resp2]
// finds: blobs/blob strings of bytes that are not UTF-8 [valkey-glide/resp3]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide/resp2]
// finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 GET THROWN: Error: Decoding error: 'Error: invalid utf-8.*RESP3 GET THROWN: Error: Decoding error: 'Error: invalid utf-8
const util = require('util');
const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide');
Logger.init('off');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = (p) => GlideClient.createClient({ addresses: [{ host, port: +port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 });
// step: one call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.customCommand(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
(async () => {
  for (const p of [2, 3]) {
    const c = await client(p);
    await c.customCommand(['SET', 'repro:bin', Buffer.from([0xff, 0xfe, 0x80, 0xc3])]);
    console.log('wire: $4\\r\\n\\xff\\xfe\\x80\\xc3\\r\\n');
    await step('RESP' + p + ' GET', c, ['GET', 'repro:bin']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
