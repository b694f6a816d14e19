// Shared by the Node repros: node FILE.js HOST:PORT, with the libraries on
// NODE_PATH (see README.md).
const util = require('util');
const [host, port] = (process.argv[2] || '').split(':');
if (!port) { console.log('usage: node FILE.js HOST:PORT'); process.exit(2); }

const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });

// How each library connects, sends one generic command, sends a batch
// (mode 'pipeline' or 'multi') and closes; a library is required only when
// a repro uses it. The older versions are npm aliases of
// adapters/node/package.json: ioredis-5 (ioredis 5.11.1), redis-5
// (node-redis 5.12.1), redis-4 (node-redis 4.7.1). opts.options are
// ioredis constructor options ({ replyMapping: 'resp3' }, { stringNumbers:
// true }); opts.typeMapping a node-redis type mapping by RESP_TYPES name
// ({ MAP: Map, BLOB_STRING: Buffer }).
const ioredisLike = (mod, hasProtocol) => ({
  connect: async (p, o) => {
    const Redis = require(mod);
    const c = new Redis({ host: o.host, port: o.port, ...(hasProtocol ? { protocol: p } : {}), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...o.options });
    c.on('error', () => {});
    await c.connect();
    return c;
  },
  call: (c, a) => c.call(a[0], ...a.slice(1)),
  // pipeline(...)/multi(...).exec() resolve with [error, result] per command.
  batch: async (c, mode, cmds) => {
    const list = cmds.map((a) => ['call', ...a]);
    const r = await (mode === 'multi' ? c.multi(list) : c.pipeline(list)).exec();
    return Array.isArray(r) ? r.map(([e, v]) => e || v) : r;
  },
  close: (c) => c.disconnect(),
});
const nodeRedis = (mod, hasResp) => ({
  connect: async (p, o) => {
    const { createClient, RESP_TYPES } = require(mod);
    const base = createClient({ socket: { host: o.host, port: o.port, reconnectStrategy: false }, ...(hasResp ? { RESP: p } : {}) });
    base.on('error', () => {});
    await base.connect();
    if (!o.typeMapping) return base;
    const tm = {};
    for (const [k, v] of Object.entries(o.typeMapping)) tm[RESP_TYPES[k]] = v;
    return base.withTypeMapping(tm);
  },
  call: (c, a) => c.sendCommand(a),
  batch: (c, mode, cmds) => {
    const m = c.multi();
    for (const a of cmds) m.addCommand(a);
    return mode === 'multi' ? m.exec() : m.execAsPipeline();
  },
  close: (c) => (c.destroy ? c.destroy() : c.disconnect()),
});
const libs = {
  ioredis: ioredisLike('ioredis', true),
  'ioredis-5': ioredisLike('ioredis-5', false), // RESP2 only: no protocol option
  iovalkey: ioredisLike('iovalkey', false), // iovalkey 0.4.0 speaks RESP2 only: it has no protocol option.
  'node-redis': nodeRedis('redis', true),
  'node-redis-5': nodeRedis('redis-5', true),
  'node-redis-4': nodeRedis('redis-4', false), // RESP2 only: no RESP option
  'valkey-glide': {
    connect: (p, o) => { const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide'); Logger.init('off'); return GlideClient.createClient({ addresses: [{ host: o.host, port: o.port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 }); },
    call: (c, a) => c.customCommand(a),
    // exec(new Batch(isAtomic), raiseOnError false): errors in the list.
    batch: (c, mode, cmds) => {
      const { Batch } = require('@valkey/valkey-glide');
      const b = new Batch(mode === 'multi');
      for (const a of cmds) b.customCommand(a);
      return c.exec(b, false);
    },
    close: (c) => c.close(),
  },
  // GlideClusterClient, seeded with the repro's node (a cluster repro).
  'valkey-glide-cluster': {
    connect: (p, o) => { const { GlideClusterClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide'); Logger.init('off'); return GlideClusterClient.createClient({ addresses: [{ host: o.host, port: o.port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 }); },
    call: (c, a) => c.customCommand(a),
    // exec(new ClusterBatch(isAtomic), raiseOnError false).
    batch: (c, mode, cmds) => {
      const { ClusterBatch } = require('@valkey/valkey-glide');
      const b = new ClusterBatch(mode === 'multi');
      for (const a of cmds) b.customCommand(a);
      return c.exec(b, false);
    },
    close: (c) => c.close(),
  },
  // node-redis 6.3.1's createCluster, seeded with the repro's node (a
  // cluster repro); each command routed by its second argument (the key).
  'node-redis-cluster': {
    connect: async (p, o) => {
      const { createCluster } = require('redis');
      const c = createCluster({ rootNodes: [{ socket: { host: o.host, port: o.port, reconnectStrategy: false } }], RESP: p });
      c.on('error', () => {});
      await c.connect();
      return c;
    },
    call: (c, a) => c.sendCommand(a[1], false, a),
    batch: (c, mode, cmds) => {
      const m = c.multi();
      for (const a of cmds) m.addCommand(a[1], false, a);
      return mode === 'multi' ? m.exec() : m.execAsPipeline();
    },
    close: (c) => (c.destroy ? c.destroy() : c.disconnect()),
  },
};

// client connects library `name` speaking RESP `p` (to the repro's server,
// or to opts.host/opts.port, with opts.options or opts.typeMapping);
// c.do(args) is one command, c.batch(mode, cmds) a batch, c.close() ends it.
const client = async (name, p, opts = {}) => {
  const l = libs[name];
  const c = await l.connect(p, { host: opts.host || host, port: +(opts.port || port), options: opts.options, typeMapping: opts.typeMapping });
  return { raw: c, do: (args) => l.call(c, args), batch: (mode, cmds) => l.batch(c, mode, cmds), close: () => l.close(c) };
};

// step: one c.do with a 2 s timer; prints DECODED (shown by fmt), THROWN or HANG.
const step = (label, c, args, fmt = show) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.do(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', fmt(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});

// batchStep: one c.batch with a 2 s timer, like step.
const batchStep = (label, c, mode, cmds, fmt = show) => step(label, { do: () => c.batch(mode, cmds) }, null, fmt);

// reportUncaught prints what the library throws outside any call.
const reportUncaught = () => process.on('uncaughtException', (e) => console.log('UNCAUGHT (thrown outside the call, in the library):', String(e)));

// main runs the repro and exits, printing THROWN for an error outside step.
const main = (f) => f().then(() => process.exit(0), (e) => { console.log('THROWN:', String(e)); process.exit(0); });

module.exports = { host, port, show, client, step, batchStep, reportUncaught, main };
