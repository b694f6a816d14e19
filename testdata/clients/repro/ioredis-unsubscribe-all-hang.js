// repro: ioredis 6.0.0 never settles redis.call('UNSUBSCRIBE') without arguments on a connection subscribed to a channel and a pattern: the one confirmation "unsubscribe ch 1" (the pattern still counts) does not end the command.
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/resp3]
// run: node
// expect: (?s)RESP2 UNSUBSCRIBE HANG: no result after 2s\n.*RESP3 UNSUBSCRIBE HANG: no result after 2s\n
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('ioredis', p);
    // On RESP2 the SUBSCRIBE call itself never settles (see ioredis-subscribe-typeerror.js): do not wait for it.
    if (p === 2) { c.do(['SUBSCRIBE', 'repro:ch']).catch(() => {}); await new Promise((r) => setTimeout(r, 200)); }
    else await step('RESP3 SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
    await step('RESP' + p + ' PSUBSCRIBE', c, ['PSUBSCRIBE', 'repro:c*']);
    console.log('wire: *3\\r\\n$11\\r\\nunsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n (a push > in RESP3)');
    await step('RESP' + p + ' UNSUBSCRIBE', c, ['UNSUBSCRIBE']);
    c.close();
  }
});
