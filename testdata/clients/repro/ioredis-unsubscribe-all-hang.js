// repro: ioredis 6.0.0 never settles redis.call('UNSUBSCRIBE') without arguments on a connection subscribed to a channel and a pattern: the one confirmation "unsubscribe ch 1" (the pattern still counts) does not end the command.
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis/resp3]
// run: node
// expect: (?s)RESP2 UNSUBSCRIBE HANG: no result after 2s\n.*RESP3 UNSUBSCRIBE HANG: no result after 2s\n
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
    // On RESP2 the SUBSCRIBE call itself never settles (see ioredis-subscribe-typeerror.js): do not wait for it.
    if (p === 2) { c.call('SUBSCRIBE', 'repro:ch').catch(() => {}); await new Promise((r) => setTimeout(r, 200)); }
    else await step('RESP3 SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
    await step('RESP' + p + ' PSUBSCRIBE', c, ['PSUBSCRIBE', 'repro:c*']);
    console.log('wire: *3\\r\\n$11\\r\\nunsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n (a push > in RESP3)');
    await step('RESP' + p + ' UNSUBSCRIBE', c, ['UNSUBSCRIBE']);
    c.disconnect();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
