// repro: ioredis 6.0.0 on RESP2, redis.call('SUBSCRIBE', ch) (or PSUBSCRIBE/SSUBSCRIBE) throws "TypeError: Cannot set properties of undefined (setting '<channel>')" from inside the library when the confirmation "*3\r\n$9\r\nsubscribe\r\n..." arrives, and the call never settles.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [ioredis-6.0.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [ioredis-6.0.0/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [ioredis-6.0.0/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [ioredis-6.0.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [ioredis-6.0.0/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [ioredis-6.0.0/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [ioredis-6.0.0/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [ioredis-6.0.0/resp2]
// run: node
// expect: (?s)UNCAUGHT \(thrown outside the call, in the library\): TypeError: Cannot set properties of undefined \(setting 'repro:ch'\)\n.*UNCAUGHT .*TypeError: Cannot set properties of undefined \(setting 'repro:p\*'\)
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  for (const [cmd, ch] of [['SUBSCRIBE', 'repro:ch'], ['PSUBSCRIBE', 'repro:p*'], ['SSUBSCRIBE', 'repro:s']]) {
    const c = await client('ioredis', 2);
    console.log('wire: *3\\r\\n$' + cmd.length + '\\r\\n' + cmd.toLowerCase() + '\\r\\n$' + ch.length + '\\r\\n' + ch + '\\r\\n:1\\r\\n');
    await step('RESP2 ' + cmd, c, [cmd, ch]);
    c.close();
  }
});
