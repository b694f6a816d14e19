// repro: node-redis 6.3.1 on RESP3 never settles client.sendCommand(['SUBSCRIBE', ch]) (nor PSUBSCRIBE/SSUBSCRIBE): the confirmation arrives as a push (">3\r\n$9\r\nsubscribe\r\n...") that does not answer the command.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-6.3.1/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [node-redis-6.3.1/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [node-redis-6.3.1/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-6.3.1/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-6.3.1/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [node-redis-6.3.1/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-6.3.1/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-6.3.1/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1/resp3]
// finds: pushes/message push between two replies on a subscribed connection [node-redis-6.3.1/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-6.3.1/resp3]
// run: node
// expect: (?s)RESP3 SUBSCRIBE HANG: no result after 2s\n.*RESP3 PSUBSCRIBE HANG: no result after 2s\n.*RESP3 SSUBSCRIBE HANG: no result after 2s\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const [cmd, ch] of [['SUBSCRIBE', 'repro:ch'], ['PSUBSCRIBE', 'repro:p*'], ['SSUBSCRIBE', 'repro:s']]) {
    const c = await client('node-redis', 3);
    console.log('wire: >3\\r\\n$' + cmd.length + '\\r\\n' + cmd.toLowerCase() + '\\r\\n$' + ch.length + '\\r\\n' + ch + '\\r\\n:1\\r\\n');
    await step('RESP3 ' + cmd, c, [cmd, ch]);
    c.close();
  }
});
