// repro: iovalkey 0.4.0 (RESP2 only) cannot parse the RESP3 map HELLO 3 answers ("%7\r\n..."): a ParserError 'got "%" as reply type byte' and the connection is dropped, so the next call fails too.
// finds: faults/HELLO 3 through a RESP2 connection [iovalkey/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [iovalkey/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [iovalkey/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [iovalkey/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [iovalkey/resp2]
// run: node
// expect: (?s)RESP2 HELLO 3 THROWN: ParserError: Protocol error, got "%" as reply type byte.*RESP2 ECHO next (THROWN|HANG)
const util = require('util');
const Redis = require('iovalkey');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = async (p) => { const c = new Redis({ host, port: +port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null }); c.on('error', () => {}); await c.connect(); return c; };
// step: one c.call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.call(args[0], ...args.slice(1)).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
process.on('uncaughtException', (e) => console.log('UNCAUGHT (thrown outside the call, in the library):', String(e)));
(async () => {
  const c = await client(2);
  console.log('wire: %7\\r\\n$6\\r\\nserver\\r\\n$5\\r\\nredis\\r\\n...');
  await step('RESP2 HELLO 3', c, ['HELLO', '3']);
  await step('RESP2 ECHO next', c, ['ECHO', 'next']);
  c.disconnect();
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
