// repro: ioredis 6.0.0's Cluster in RESP3: call('SSUBSCRIBE', channel) rejects with "Too many Cluster redirections", while the node of the channel's slot confirms it. Against a cluster of 3 primaries.
// cluster: true
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-6.0.0/cluster/resp3]
// run: node
// expect: (?s)RESP3 SSUBSCRIBE (THROWN: ReplyError: Too many Cluster redirections|THROWN: Error: Too many Cluster redirections)
const Redis = require('ioredis');
const [host, port] = process.argv[2].split(':');
const show = (v) => require('util').inspect(v, { depth: null, breakLength: Infinity });
const timed = (label, p) => Promise.race([
  p.then((v) => console.log(label, 'DECODED:', show(v)), (e) => console.log(label, 'THROWN:', String(e).split('\n')[0])),
  new Promise((r) => setTimeout(() => { console.log(label, 'HANG: no result after 2s'); r(); }, 4000)),
]);
(async () => {
  const c = new Redis.Cluster([{ host, port: +port }], { redisOptions: { protocol: 3 } });
  c.on('error', () => {});
  await timed('RESP3 SSUBSCRIBE', c.call('SSUBSCRIBE', 'repro:{t}s'));
  process.exit(0);
})();
