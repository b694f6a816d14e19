// repro: iovalkey 0.4.0 (RESP2) through redis.call: after redis.call('SUBSCRIBE', ch), a published message still unread when UNSUBSCRIBE is sent (a loaded machine; here the connection's socket is paused meanwhile) becomes UNSUBSCRIBE's result, and every later reply is one behind (PING gets the unsubscribe confirmation).
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [iovalkey-0.4.0/resp2]
// run: node
// expect: (?s)SUBSCRIBE DECODED: \[ 'subscribe', 'repro:ch', 1 \]\n.*UNSUBSCRIBE DECODED: \[ 'message', 'repro:ch', 'hi' \]\nPING DECODED: \[ 'unsubscribe', 'repro:ch', 0 \]\n
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
  pub.close();
});
