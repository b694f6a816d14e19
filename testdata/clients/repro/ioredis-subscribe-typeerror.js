// repro: ioredis 6.0.0 on RESP2, redis.call('SUBSCRIBE', ch) (or PSUBSCRIBE/SSUBSCRIBE) throws "TypeError: Cannot set properties of undefined (setting '<channel>')" from inside the library when the confirmation "*3\r\n$9\r\nsubscribe\r\n..." arrives, and the call never settles.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis/resp2]
// run: node
// expect: (?s)UNCAUGHT \(thrown outside the call, in the library\): TypeError: Cannot set properties of undefined \(setting 'repro:ch'\)\n.*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:p\*'\)
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
  for (const [cmd, ch] of [['SUBSCRIBE', 'repro:ch'], ['PSUBSCRIBE', 'repro:p*'], ['SSUBSCRIBE', 'repro:s']]) {
    const c = await client(2);
    console.log('wire: *3\\r\\n$' + cmd.length + '\\r\\n' + cmd.toLowerCase() + '\\r\\n$' + ch.length + '\\r\\n' + ch + '\\r\\n:1\\r\\n');
    await step('RESP2 ' + cmd, c, [cmd, ch]);
    c.disconnect();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
