// repro: valkey-glide's customCommand returns null for SUBSCRIBE and PSUBSCRIBE, whose confirmation on the wire is an array (RESP2) or a push (RESP3) "subscribe", channel, count.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [valkey-glide-2.5.2/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [valkey-glide-2.5.2/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [valkey-glide-2.5.2/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [valkey-glide-2.5.2/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [valkey-glide-2.5.2/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [valkey-glide-2.5.2/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [valkey-glide-2.5.2/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [valkey-glide-2.5.2/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [valkey-glide-2.5.2/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [valkey-glide-2.5.2/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [valkey-glide-2.5.2/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [valkey-glide-2.5.2/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [valkey-glide-2.5.2/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [valkey-glide-2.5.2/resp3]
// finds: pushes/message push between two replies on a subscribed connection [valkey-glide-2.5.2/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [valkey-glide-2.5.2/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [valkey-glide-2.5.2/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/pipeline/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/pipeline/resp3]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/PSUBSCRIBE confirmation [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [valkey-glide-2.5.2/cluster/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [valkey-glide-2.5.2/cluster/resp3]
// finds: pushes/message push between two replies on a subscribed connection [valkey-glide-2.5.2/cluster/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [valkey-glide-2.5.2/cluster/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [valkey-glide-2.5.2/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [valkey-glide-2.5.2/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 SUBSCRIBE DECODED: null\n.*RESP2 PSUBSCRIBE DECODED: null\n.*RESP3 SUBSCRIBE DECODED: null\n.*RESP3 PSUBSCRIBE DECODED: null\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    console.log(p === 2 ? 'wire: *3\\r\\n$9\\r\\nsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n' : 'wire: >3\\r\\n$9\\r\\nsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n');
    await step('RESP' + p + ' SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
    c.close();
    const d = await client('valkey-glide', p);
    await step('RESP' + p + ' PSUBSCRIBE', d, ['PSUBSCRIBE', 'repro:p*']);
    d.close();
  }
});
