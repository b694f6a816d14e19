// repro: ioredis 6.0.0 on RESP3 rejects the attribute type of DEBUG PROTOCOL attrib ("|1\r\n$14\r\nkey-popularity\r\n...") with "Unknown RESP type 124", alone or inside EXEC, and the connection's later replies no longer line up.
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis/resp3]
// finds: faults/attribute before a reply [ioredis/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*RESP3 EXEC THROWN: Error: Unknown RESP type 124 "\|"
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
  let c = await client(3);
  console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 ECHO next', c, ['ECHO', 'next']);
  c.disconnect();
  c = await client(3);
  await step('RESP3 MULTI', c, ['MULTI']);
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 EXEC', c, ['EXEC']);
  c.disconnect();
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
