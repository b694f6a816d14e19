// repro: ioredis 6.0.0 (with or without stringNumbers) and 5.11.1 on RESP2, redis.call('SUBSCRIBE', ch) (or PSUBSCRIBE/SSUBSCRIBE) throws "TypeError: Cannot set properties of undefined (setting '<channel>')" from inside the library when the confirmation "*3\r\n$9\r\nsubscribe\r\n..." arrives, and the call never settles.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis-6.0.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis-6.0.0/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-6.0.0/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-6.0.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis-6.0.0/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis-6.0.0/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis-6.0.0/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-6.0.0/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis-5.11.1/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis-5.11.1/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-5.11.1/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-5.11.1/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis-5.11.1/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis-5.11.1/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis-5.11.1/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-5.11.1/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-5.11.1/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-6.0.0[stringNumbers=true]/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-6.0.0/pipeline/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis-6.0.0/cluster/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0/cluster/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-6.0.0/cluster/resp2]
// run: node
// expect: (?s)UNCAUGHT \(thrown outside the call, in the library\): TypeError: Cannot set properties of undefined \(setting 'repro:ch'\)\n.*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:p\*'\).*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:ch:v5'\)\n.*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:p\*:v5'\).*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:ch:sn'\)\n.*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:p\*:sn'\)
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
// Each configuration's channels carry its tag (the TypeError names the
// channel): ioredis 6.0.0, ioredis 5.11.1 and ioredis 6.0.0 with
// stringNumbers.
main(async () => {
  for (const [tag, lib, opts] of [['', 'ioredis'], [':v5', 'ioredis-5'], [':sn', 'ioredis', { options: { stringNumbers: true } }]]) {
    for (const [cmd, ch] of [['SUBSCRIBE', 'repro:ch' + tag], ['PSUBSCRIBE', 'repro:p*' + tag], ['SSUBSCRIBE', 'repro:s' + tag]]) {
      const c = await client(lib, 2, opts);
      console.log('wire: *3\\r\\n$' + cmd.length + '\\r\\n' + cmd.toLowerCase() + '\\r\\n$' + ch.length + '\\r\\n' + ch + '\\r\\n:1\\r\\n');
      await step('RESP2 ' + cmd, c, [cmd, ch]);
      c.close();
    }
  }
});
