// The same kinds of application as app.py, driven by ioredis (NODE_PATH:
// the clients cache's adapters/node/node_modules) against argv[2].
const Redis = require('ioredis');
const [host, port] = process.argv[2].split(':');

async function main() {
  const r = new Redis({ host, port: Number(port), lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 1 });
  await r.connect();
  for (let i = 0; i < 3; i++) {
    if ((await r.incr('rl:user1')) === 1) await r.expire('rl:user1', 60);
  }
  await r.watch('balance');
  const cur = Number((await r.get('balance')) || 0);
  await r.multi().set('balance', String(cur + 10)).exec();
  await r.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", 1, 'counter', 5);
  await r.pipeline().hset('h', 'a', '1', 'b', '2').hgetall('h').lpush('q', 'x', 'y').lrange('q', 0, -1).exec();
  const sub = new Redis({ host, port: Number(port), lazyConnect: true, enableReadyCheck: false });
  await sub.connect();
  const got = new Promise((resolve) => sub.on('message', (ch, msg) => resolve(msg)));
  await sub.subscribe('news');
  await r.publish('news', 'hello');
  console.log('message', await got);
  await sub.quit();
  console.log('done', await r.get('counter'));
  await r.quit();
}
main().catch((e) => { console.error(e); process.exit(1); });
