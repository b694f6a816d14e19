// repro: valkey-glide 2.5.2 (RESP3, the default String decoder) cannot deliver a message whose payload is not UTF-8: a getPubSubMessage() waiting when it arrives never settles, and "invalid utf-8 sequence" is thrown outside any call (process.on('uncaughtException')).
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [valkey-glide-2.5.2/pubsub/resp3]
// run: node
// expect: (?s)UNCAUGHT \(thrown outside the call, in the library\): .*invalid utf-8 sequence.*waiting getPubSubMessage HANG: no result after 2s
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  const sub = await client('valkey-glide', 3);
  const pub = await client('valkey-glide', 3);
  await sub.raw.subscribe(new Set(['repro:bin']), 2000);
  console.log('wire: >3\\r\\n$7\\r\\nmessage\\r\\n$9\\r\\nrepro:bin\\r\\n$8\\r\\n\\r\\n\\x00\\xff*1\\r\\n\\r\\n');
  const waiting = step('waiting getPubSubMessage', { do: () => sub.raw.getPubSubMessage() }, null);
  await pub.do(['PUBLISH', 'repro:bin', Buffer.from('0d0a00ff2a310d0a', 'hex')]);
  await waiting;
  sub.close(); pub.close();
});
