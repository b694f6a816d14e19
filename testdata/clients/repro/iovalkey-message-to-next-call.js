// repro: iovalkey 0.4.0 (RESP2) through redis.call: after redis.call('SUBSCRIBE', ch) (or PSUBSCRIBE), a published message (or pmessage) still unread when the next command is sent (a loaded machine; here the connection's socket is paused meanwhile) becomes that command's result; the next reply is then the (p)unsubscribe confirmation, one behind, or, when the library reads the confirmation apart (timing), PING's own PONG.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [iovalkey-0.4.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [iovalkey-0.4.0/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [iovalkey-0.4.0/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [iovalkey-0.4.0/resp2]
// run: node
// expect: (?s)SUBSCRIBE DECODED: \[ 'subscribe', 'repro:ch', 1 \]\n.*UNSUBSCRIBE DECODED: \[ 'message', 'repro:ch', 'hi' \]\nPING DECODED: (\[ 'unsubscribe', 'repro:ch', 0 \]|'PONG')\n.*PUNSUBSCRIBE DECODED: \[ 'pmessage', 'repro:\*', 'repro:ch', 'hi' \]\nPING DECODED: (\[ 'punsubscribe', 'repro:\*', 0 \]|'PONG')\n
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  const c = await client('iovalkey', 2);
  const pub = await client('iovalkey', 2);
  await step('SUBSCRIBE', c, ['SUBSCRIBE', 'repro:ch']);
  // As on a loaded machine: the subscribed connection has not read the
  // message yet when UNSUBSCRIBE is sent.
  c.raw.stream.pause();
  console.log('wire: *3\\r\\n$7\\r\\nmessage\\r\\n$8\\r\\nrepro:ch\\r\\n$2\\r\\nhi\\r\\n*3\\r\\n$11\\r\\nunsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:0\\r\\n');
  await step('PUBLISH (other connection)', pub, ['PUBLISH', 'repro:ch', 'hi']);
  const u = step('UNSUBSCRIBE', c, ['UNSUBSCRIBE', 'repro:ch']);
  c.raw.stream.resume();
  await u;
  await step('PING', c, ['PING']);
  c.close();
  const p = await client('iovalkey', 2);
  await step('PSUBSCRIBE', p, ['PSUBSCRIBE', 'repro:*']);
  p.raw.stream.pause();
  await step('PUBLISH (other connection)', pub, ['PUBLISH', 'repro:ch', 'hi']);
  const pu = step('PUNSUBSCRIBE', p, ['PUNSUBSCRIBE', 'repro:*']);
  p.raw.stream.resume();
  await pu;
  await step('PING', p, ['PING']);
  p.close();
  pub.close();
});
