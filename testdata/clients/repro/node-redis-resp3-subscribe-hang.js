// repro: node-redis 6.3.1 (with or without a typeMapping) and 5.12.1 on RESP3 never settle client.sendCommand(['SUBSCRIBE', ch]) (nor PSUBSCRIBE/SSUBSCRIBE): the confirmation arrives as a push (">3\r\n$9\r\nsubscribe\r\n...") that does not answer the command. An UNSUBSCRIBE of two channels on a connection subscribed to none settles with undefined (its confirmations are pushes too).
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
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-5.12.1/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [node-redis-5.12.1/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [node-redis-5.12.1/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-5.12.1/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-5.12.1/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [node-redis-5.12.1/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-5.12.1/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-5.12.1/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-5.12.1/resp3]
// finds: pushes/message push between two replies on a subscribed connection [node-redis-5.12.1/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-5.12.1/resp3]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pushes/message push between two replies on a subscribed connection [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pushes/message push between two replies on a subscribed connection [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-6.3.1/pipeline/resp3]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1/cluster/resp3]
// finds: pushes/message push between two replies on a subscribed connection [node-redis-6.3.1/cluster/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-6.3.1/cluster/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-5.12.1/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-6.3.1/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-6.3.1/cluster/resp3]
// run: node
// expect: (?s)RESP3 SUBSCRIBE HANG: no result after 2s\n.*RESP3 PSUBSCRIBE HANG: no result after 2s\n.*RESP3 SSUBSCRIBE HANG: no result after 2s\n.*node-redis-5.12.1 RESP3 SUBSCRIBE HANG: no result after 2s\n.*node-redis-6.3.1\[typeMapping=Map\+Buffer\] RESP3 SUBSCRIBE HANG: no result after 2s\n.*node-redis-6.3.1\[typeMapping=Set\+String\] RESP3 SUBSCRIBE HANG: no result after 2s\n.*node-redis-6.3.1 RESP3 UNSUBSCRIBE c1 c2 DECODED: undefined\n.*node-redis-5.12.1 RESP3 UNSUBSCRIBE c1 c2 DECODED: undefined\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const [cmd, ch] of [['SUBSCRIBE', 'repro:ch'], ['PSUBSCRIBE', 'repro:p*'], ['SSUBSCRIBE', 'repro:s']]) {
    const c = await client('node-redis', 3);
    console.log('wire: >3\\r\\n$' + cmd.length + '\\r\\n' + cmd.toLowerCase() + '\\r\\n$' + ch.length + '\\r\\n' + ch + '\\r\\n:1\\r\\n');
    await step('RESP3 ' + cmd, c, [cmd, ch]);
    c.close();
  }
  // node-redis 5.12.1 and 6.3.1 with either typeMapping: the same.
  for (const [label, lib, opts] of [['node-redis-5.12.1', 'node-redis-5'], ['node-redis-6.3.1[typeMapping=Map+Buffer]', 'node-redis', { typeMapping: { MAP: Map, BLOB_STRING: Buffer } }],
    ['node-redis-6.3.1[typeMapping=Set+String]', 'node-redis', { typeMapping: { SET: Set, DOUBLE: String, BIG_NUMBER: String } }]]) {
    const c = await client(lib, 3, opts);
    await step(label + ' RESP3 SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
    c.close();
  }
  // An UNSUBSCRIBE of two channels on a connection subscribed to none: the
  // two confirmations (pushes, count 0) settle the command with undefined.
  for (const [label, lib] of [['node-redis-6.3.1', 'node-redis'], ['node-redis-5.12.1', 'node-redis-5']]) {
    const c = await client(lib, 3);
    console.log('wire: >3\\r\\n$11\\r\\nunsubscribe\\r\\n$2\\r\\nc1\\r\\n:0\\r\\n>3 ... c2 ... :0');
    await step(label + ' RESP3 UNSUBSCRIBE c1 c2', c, ['UNSUBSCRIBE', 'c1', 'c2']);
    await step(label + ' RESP3 PING', c, ['PING']);
    c.close();
  }
});
