// repro: the message events and listeners users get by default hand a payload that is not UTF-8 over as a string with U+FFFD in place of the bytes (ioredis 6.0.0 and iovalkey 0.4.0 'message', node-redis 4.7.1, 5.12.1 and 6.3.1 subscribe listeners); ioredis's 'messageBuffer' and node-redis's bufferMode listener keep the bytes.
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0/pubsub/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [ioredis-6.0.0/pubsub/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [iovalkey-0.4.0/pubsub/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-4.7.1/pubsub/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-5.12.1/pubsub/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-5.12.1/pubsub/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1/pubsub/resp2]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [node-redis-6.3.1/pubsub/resp3]
// run: node
// expect: (?s)ioredis-6.0.0 RESP2 'message' DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'\nioredis-6.0.0 RESP2 'messageBuffer' DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>.*ioredis-6.0.0 RESP3 'message' DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'\nioredis-6.0.0 RESP3 'messageBuffer' DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>.*iovalkey-0.4.0 RESP2 'message' DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'\niovalkey-0.4.0 RESP2 'messageBuffer' DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>.*node-redis-4.7.1 RESP2 bufferMode listener DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>\nnode-redis-4.7.1 RESP2 listener DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'.*node-redis-5.12.1 RESP2 bufferMode listener DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>\nnode-redis-5.12.1 RESP2 listener DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'.*node-redis-5.12.1 RESP3 bufferMode listener DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>\nnode-redis-5.12.1 RESP3 listener DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'.*node-redis-6.3.1 RESP2 bufferMode listener DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>\nnode-redis-6.3.1 RESP2 listener DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'.*node-redis-6.3.1 RESP3 bufferMode listener DECODED: <Buffer 0d 0a 00 ff 2a 31 0d 0a>\nnode-redis-6.3.1 RESP3 listener DECODED: '\\r\\n\\x00\x{FFFD}\*1\\r\\n'
const { client, show, main } = require('./lib');
const payload = Buffer.from('0d0a00ff2a310d0a', 'hex');
const runs = [['ioredis-6.0.0', 'ioredis', 2], ['ioredis-6.0.0', 'ioredis', 3], ['iovalkey-0.4.0', 'iovalkey', 2],
  ['node-redis-4.7.1', 'node-redis-4', 2], ['node-redis-5.12.1', 'node-redis-5', 2], ['node-redis-5.12.1', 'node-redis-5', 3],
  ['node-redis-6.3.1', 'node-redis', 2], ['node-redis-6.3.1', 'node-redis', 3]];
// got waits up to 2 s for n values pushed by the listeners.
const collect = () => {
  const vals = [];
  let wake = null;
  return { put: (label, v) => { vals.push([label, v]); if (wake) wake(); },
    async take(n) {
      const deadline = Date.now() + 2000;
      while (vals.length < n && Date.now() < deadline) await new Promise((r) => { wake = r; setTimeout(r, 100); });
      return vals.splice(0);
    } };
};
main(async () => {
  for (const [label, lib, p] of runs) {
    const pub = await client(lib, p);
    const got = collect();
    let sub;
    const name = label + ' RESP' + p + ' ';
    if (lib.startsWith('node-redis')) {
      sub = pub.raw.duplicate();
      sub.on('error', () => {});
      await sub.connect();
      await sub.subscribe('repro:bin', (m) => got.put(name + 'listener', m));
      await sub.subscribe('repro:bin', (m) => got.put(name + 'bufferMode listener', m), true);
    } else {
      sub = (await client(lib, p)).raw;
      sub.on('message', (ch, m) => got.put(name + "'message'", m));
      sub.on('messageBuffer', (ch, m) => got.put(name + "'messageBuffer'", m));
      await sub.subscribe('repro:bin');
    }
    console.log('wire: payload $8\\r\\n\\r\\n\\x00\\xff*1\\r\\n\\r\\n');
    await pub.do(['PUBLISH', 'repro:bin', payload]);
    for (const [l, v] of (await got.take(2)).sort()) console.log(l, 'DECODED:', show(v));
    sub.destroy ? sub.destroy() : sub.disconnect();
    pub.close();
  }
});
