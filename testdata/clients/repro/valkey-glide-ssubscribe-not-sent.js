// repro: valkey-glide's customCommand(['SSUBSCRIBE', ch]) on a standalone client returns null without ever sending SSUBSCRIBE to the server (a relay in front of the server shows nothing written after the call).
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide-2.5.2/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide-2.5.2/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide-2.5.2/cluster/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 SSUBSCRIBE DECODED: null\nRESP2 SENT after the call: \[\]\n.*RESP3 SSUBSCRIBE DECODED: null\nRESP3 SENT after the call: \[\]\n
const { host, port, show, client, step, main } = require('./lib');
main(async () => {
  // A relay that records what the client writes, to show what was sent.
  const net = require('net');
  let sent = [];
  const relay = net.createServer((cl) => {
    const up = net.connect(+port, host);
    cl.on('data', (d) => { sent.push(d.toString()); up.write(d); });
    up.on('data', (d) => cl.write(d));
    cl.on('close', () => up.destroy()); up.on('close', () => cl.destroy());
  });
  await new Promise((r) => relay.listen(0, '127.0.0.1', r));
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p, { host: '127.0.0.1', port: relay.address().port });
    await c.do(['PING']);
    sent = [];
    await step('RESP' + p + ' SSUBSCRIBE', c, ['SSUBSCRIBE', 'repro:s']);
    await new Promise((r) => setTimeout(r, 300));
    console.log('RESP' + p + ' SENT after the call:', show(sent));
    c.close();
  }
});
