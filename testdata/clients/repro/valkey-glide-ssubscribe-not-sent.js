// repro: valkey-glide's customCommand(['SSUBSCRIBE', ch]) on a standalone client returns null without ever sending SSUBSCRIBE to the server (a relay in front of the server shows nothing written after the call).
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide/resp2]
// finds: pubsub/SSUBSCRIBE confirmation [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 SSUBSCRIBE DECODED: null\nRESP2 SENT after the call: \[\]\n.*RESP3 SSUBSCRIBE DECODED: null\nRESP3 SENT after the call: \[\]\n
const util = require('util');
const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide');
Logger.init('off');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = (p) => GlideClient.createClient({ addresses: [{ host, port: +port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 });
// step: one call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.customCommand(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
(async () => {
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
    const c = await GlideClient.createClient({ addresses: [{ host: '127.0.0.1', port: relay.address().port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 });
    await c.customCommand(['PING']);
    sent = [];
    await step('RESP' + p + ' SSUBSCRIBE', c, ['SSUBSCRIBE', 'repro:s']);
    await new Promise((r) => setTimeout(r, 300));
    console.log('RESP' + p + ' SENT after the call:', show(sent));
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
