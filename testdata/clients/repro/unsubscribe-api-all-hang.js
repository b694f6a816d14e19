// repro: the subscribe APIs of ioredis 6.0.0, iovalkey 0.4.0, node-redis 4.7.1 and 5.12.1 never settle an unsubscribe() without channels on a connection subscribed to a channel and a pattern: the one confirmation "unsubscribe ch 1" (the pattern still counts) does not end the call; node-redis 6.3.1 resolves it.
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/pubsub/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/pubsub/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [iovalkey-0.4.0/pubsub/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-4.7.1/pubsub/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-5.12.1/pubsub/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-5.12.1/pubsub/resp3]
// run: node
// expect: (?s)ioredis-6.0.0 RESP2 unsubscribe\(\) HANG.*ioredis-6.0.0 RESP3 unsubscribe\(\) HANG.*iovalkey-0.4.0 RESP2 unsubscribe\(\) HANG.*node-redis-4.7.1 RESP2 unsubscribe\(\) HANG.*node-redis-5.12.1 RESP2 unsubscribe\(\) HANG.*node-redis-5.12.1 RESP3 unsubscribe\(\) HANG.*node-redis-6.3.1 RESP2 unsubscribe\(\) DECODED.*node-redis-6.3.1 RESP3 unsubscribe\(\) DECODED
const { client, step, main } = require('./lib');
// The subscribe methods as users call them: ioredis subscribe(ch),
// psubscribe(pattern), unsubscribe(); node-redis on its duplicate()
// subscribe(ch, listener), pSubscribe(pattern, listener), unsubscribe().
const runs = [['ioredis-6.0.0', 'ioredis', 2], ['ioredis-6.0.0', 'ioredis', 3], ['iovalkey-0.4.0', 'iovalkey', 2],
  ['node-redis-4.7.1', 'node-redis-4', 2], ['node-redis-5.12.1', 'node-redis-5', 2], ['node-redis-5.12.1', 'node-redis-5', 3],
  ['node-redis-6.3.1', 'node-redis', 2], ['node-redis-6.3.1', 'node-redis', 3]];
main(async () => {
  for (const [label, lib, p] of runs) {
    const c = await client(lib, p);
    let sub = c.raw;
    const l = () => {};
    if (lib.startsWith('node-redis')) {
      sub = c.raw.duplicate();
      sub.on('error', () => {});
      await sub.connect();
      await sub.subscribe('repro:ch', l);
      await sub.pSubscribe('repro:c*', l);
    } else {
      await sub.subscribe('repro:ch');
      await sub.psubscribe('repro:c*');
    }
    console.log('wire: *3\\r\\n$11\\r\\nunsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n (a push > in RESP3)');
    await step(label + ' RESP' + p + ' unsubscribe()', { do: () => sub.unsubscribe() }, null);
    if (sub !== c.raw) sub.destroy ? sub.destroy() : sub.disconnect();
    c.close();
  }
});
