// repro: node-redis 6.3.1 on RESP3 never settles client.sendCommand(['DEBUG', 'PROTOCOL', 'attrib']), whose reply is an attribute ("|1\r\n$14\r\nkey-popularity\r\n...") before a blob string, nor an EXEC whose array holds such a reply.
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis/resp3]
// finds: faults/attribute before a reply [node-redis/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*RESP3 EXEC HANG: no result after 2s\n
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
  let c = await client(3);
  console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  c.destroy();
  c = await client(3);
  await step('RESP3 MULTI', c, ['MULTI']);
  await step('RESP3 DEBUG PROTOCOL attrib queued', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 EXEC', c, ['EXEC']);
  c.destroy();
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
