// repro: ioredis 6.0.0 (also with replyMapping resp3 or stringNumbers) and 5.11.1 never settle redis.call('UNSUBSCRIBE') without arguments on a connection subscribed to a channel and a pattern: the one confirmation "unsubscribe ch 1" (the pattern still counts) does not end the command.
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-5.11.1/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [ioredis-6.0.0/cluster/resp3]
// run: node
// expect: (?s)RESP2 UNSUBSCRIBE HANG: no result after 2s\n.*RESP3 UNSUBSCRIBE HANG: no result after 2s\n.*ioredis-5.11.1 RESP2 UNSUBSCRIBE HANG: no result after 2s\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 UNSUBSCRIBE HANG: no result after 2s\n.*ioredis-6.0.0\[stringNumbers=true\] RESP2 UNSUBSCRIBE HANG: no result after 2s\n.*ioredis-6.0.0\[stringNumbers=true\] RESP3 UNSUBSCRIBE HANG: no result after 2s\n
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
// ioredis 6.0.0 in RESP2 and RESP3, then ioredis 5.11.1 (RESP2) and 6.0.0
// with replyMapping resp3 (RESP3) or stringNumbers.
const runs = [['', 'ioredis', 2], ['', 'ioredis', 3], ['ioredis-5.11.1 ', 'ioredis-5', 2],
  ['ioredis-6.0.0[replyMapping=resp3] ', 'ioredis', 3, { options: { replyMapping: 'resp3' } }],
  ['ioredis-6.0.0[stringNumbers=true] ', 'ioredis', 2, { options: { stringNumbers: true } }],
  ['ioredis-6.0.0[stringNumbers=true] ', 'ioredis', 3, { options: { stringNumbers: true } }]];
main(async () => {
  for (const [label, lib, p, opts] of runs) {
    const c = await client(lib, p, opts);
    // On RESP2 the SUBSCRIBE call itself never settles (see ioredis-subscribe-typeerror.js): do not wait for it.
    if (p === 2) { c.do(['SUBSCRIBE', 'repro:ch']).catch(() => {}); await new Promise((r) => setTimeout(r, 200)); }
    else await step(label + 'RESP3 SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
    await step(label + 'RESP' + p + ' PSUBSCRIBE', c, ['PSUBSCRIBE', 'repro:c*']);
    console.log('wire: *3\\r\\n$11\\r\\nunsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n (a push > in RESP3)');
    await step(label + 'RESP' + p + ' UNSUBSCRIBE', c, ['UNSUBSCRIBE']);
    c.close();
  }
});
