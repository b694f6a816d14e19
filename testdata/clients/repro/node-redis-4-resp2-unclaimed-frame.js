// repro: node-redis 4.7.1 (RESP2 only, @redis/client 1.6.1) through client.sendCommand: a frame no command waits for (a message published to a channel it subscribed with sendCommand(['SUBSCRIBE', ch]), the second confirmation of SUBSCRIBE c1 c2) throws "TypeError: Cannot destructure property 'resolve' of ...shift(...)" inside the library, and every later call on the connection hangs; the RESP3 map HELLO 3 answers is never settled either.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [node-redis-4.7.1/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [node-redis-4.7.1/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [node-redis-4.7.1/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-4.7.1/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [node-redis-4.7.1/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [node-redis-4.7.1/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [node-redis-4.7.1/resp2]
// finds: faults/HELLO 3 through a RESP2 connection [node-redis-4.7.1/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [node-redis-4.7.1/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [node-redis-4.7.1/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [node-redis-4.7.1/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [node-redis-4.7.1/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [node-redis-4.7.1/resp2]
// run: node
// expect: (?s)SUBSCRIBE DECODED: \[ 'subscribe', 'repro:ch', 1 \]\n.*UNCAUGHT \(thrown outside the call, in the library\): TypeError: Cannot destructure property 'resolve'.*UNSUBSCRIBE HANG: no result after 2s\n.*UNCAUGHT .*TypeError: Cannot destructure property 'resolve'.*SUBSCRIBE two channels DECODED: \[ 'subscribe', 'repro:c1', 1 \]\n.*HELLO 3 HANG: no result after 2s\n
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  let c = await client('node-redis-4', 2);
  const pub = await client('node-redis-4', 2);
  await step('SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
  console.log('wire: *3\\r\\n$7\\r\\nmessage\\r\\n$8\\r\\nrepro:ch\\r\\n$2\\r\\nhi\\r\\n');
  await step('PUBLISH (other connection)', pub, ['PUBLISH', 'repro:ch', 'hi']);
  await new Promise((r) => setTimeout(r, 100));
  await step('UNSUBSCRIBE', c, ['UNSUBSCRIBE', 'repro:ch']);
  c.close();
  pub.close();
  c = await client('node-redis-4', 2);
  console.log('wire: *3\\r\\n$9\\r\\nsubscribe\\r\\n$8\\r\\nrepro:c1\\r\\n:1\\r\\n*3\\r\\n$9\\r\\nsubscribe\\r\\n$8\\r\\nrepro:c2\\r\\n:2\\r\\n');
  await step('SUBSCRIBE two channels', c, ['SUBSCRIBE', 'repro:c1', 'repro:c2']);
  await new Promise((r) => setTimeout(r, 100));
  c.close();
  c = await client('node-redis-4', 2);
  console.log('wire: %7\\r\\n$6\\r\\nserver\\r\\n$5\\r\\nredis\\r\\n...');
  await step('HELLO 3', c, ['HELLO', '3']);
  c.close();
});
