// Shared by the Node repros: node FILE.js HOST:PORT, with the libraries on
// NODE_PATH (see README.md).
const util = require('util');
const [host, port] = (process.argv[2] || '').split(':');
if (!port) { console.log('usage: node FILE.js HOST:PORT'); process.exit(2); }

const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });

// How each library connects, sends one generic command and closes; a
// library is required only when a repro uses it.
const libs = {
  ioredis: {
    connect: async (p, o) => { const Redis = require('ioredis'); const c = new Redis({ host: o.host, port: o.port, protocol: p, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null }); c.on('error', () => {}); await c.connect(); return c; },
    call: (c, a) => c.call(a[0], ...a.slice(1)),
    close: (c) => c.disconnect(),
  },
  // iovalkey 0.4.0 speaks RESP2 only: it has no protocol option.
  iovalkey: {
    connect: async (p, o) => { const Redis = require('iovalkey'); const c = new Redis({ host: o.host, port: o.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null }); c.on('error', () => {}); await c.connect(); return c; },
    call: (c, a) => c.call(a[0], ...a.slice(1)),
    close: (c) => c.disconnect(),
  },
  'node-redis': {
    connect: async (p, o) => { const { createClient } = require('redis'); const c = createClient({ socket: { host: o.host, port: o.port, reconnectStrategy: false }, RESP: p }); c.on('error', () => {}); await c.connect(); return c; },
    call: (c, a) => c.sendCommand(a),
    close: (c) => c.destroy(),
  },
  'valkey-glide': {
    connect: (p, o) => { const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide'); Logger.init('off'); return GlideClient.createClient({ addresses: [{ host: o.host, port: o.port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 }); },
    call: (c, a) => c.customCommand(a),
    close: (c) => c.close(),
  },
};

// client connects library `name` speaking RESP `p` (to the repro's server,
// or to opts.host/opts.port); c.do(args) is one command, c.close() ends it.
const client = async (name, p, opts = {}) => {
  const l = libs[name];
  const c = await l.connect(p, { host: opts.host || host, port: +(opts.port || port) });
  return { raw: c, do: (args) => l.call(c, args), close: () => l.close(c) };
};

// step: one c.do with a 2 s timer; prints DECODED (shown by fmt), THROWN or HANG.
const step = (label, c, args, fmt = show) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.do(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', fmt(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});

// reportUncaught prints what the library throws outside any call.
const reportUncaught = () => process.on('uncaughtException', (e) => console.log('UNCAUGHT (thrown outside the call, in the library):', String(e)));

// main runs the repro and exits, printing THROWN for an error outside step.
const main = (f) => f().then(() => process.exit(0), (e) => { console.log('THROWN:', String(e)); process.exit(0); });

module.exports = { host, port, show, client, step, reportUncaught, main };
