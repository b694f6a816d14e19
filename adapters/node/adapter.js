#!/usr/bin/env node
// respcheck client-view adapter for Node client libraries: ioredis,
// node-redis ("redis"), iovalkey and @valkey/valkey-glide.
//
// Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
// stdin/stdout; logs go to stderr. Each named case connection is its own
// client instance (one socket), driven through the library's generic
// command API: ioredis/iovalkey call(), node-redis sendCommand(),
// glide customCommand(). Values are reported as the library returns them,
// never normalised.
'use strict';

const readline = require('readline');

// Anything a library prints must not reach stdout, which carries responses.
const realWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, enc, cb) => process.stderr.write(chunk, enc, cb);
console.log = console.info = console.debug = (...a) => process.stderr.write(a.join(' ') + '\n');
// inflight holds the library calls ("do", "typed", ...) not answered yet:
// an exception thrown outside them (in a library's own event handler)
// answers those of its session instead of killing the process.
const inflight = new Map(); // id -> {c: the connection the call runs on, session}
// Every request runs in the async context of its session, and so do the
// sockets and timers a library creates for it: an uncaught exception
// names the session whose library threw (sessionContext.getStore()).
const { AsyncLocalStorage } = require('async_hooks');
const sessionContext = new AsyncLocalStorage();
// thrownOutside holds, per session, the exceptions its library threw while
// none of its calls was in flight; "settle" reports them.
const thrownOutside = new Map(); // session -> [message]
function send(obj) {
  inflight.delete(obj.id);
  realWrite(JSON.stringify(obj) + '\n');
}
function log(...a) {
  process.stderr.write(a.join(' ') + '\n');
}

function load(name) {
  try {
    const mod = require(name);
    const path = require('path');
    const fs = require('fs');
    const pj = path.join(__dirname, 'node_modules', name, 'package.json');
    const version = JSON.parse(fs.readFileSync(pj, 'utf8')).version;
    return { mod, version, source: 'npm ' + name + ' ' + version };
  } catch (e) {
    return { error: String(e && e.message || e).split('\n')[0] };
  }
}

// Error classes that carry a server's reply (glide's ExecAbortError is the
// EXECABORT reply to EXEC; node-redis's WatchError the nil EXEC of a
// transaction aborted by WATCH, which multi().exec() rejects with).
const SERVER_ERRORS = new Set(['ReplyError', 'ErrorReply', 'SimpleError', 'BlobError', 'RequestError', 'ExecAbortError', 'WatchError']);

function typeName(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Buffer.isBuffer(v)) return 'Buffer';
  if (typeof v === 'object') return (v.constructor && v.constructor.name) || 'Object';
  return typeof v;
}

// errorText is an error's message, or what it carries when the message is
// empty (an AggregateError's errors, a code, a cause).
function errorText(e) {
  if (e.message) return String(e.message);
  if (Array.isArray(e.errors) && e.errors.length) return e.errors.map((x) => (x && x.message) || String(x)).join('; ');
  if (e.code) return String(e.code);
  if (e.cause) return 'cause: ' + ((e.cause && e.cause.message) || String(e.cause));
  // An empty message is the text: a server's empty error reply ("-\r\n")
  // reaches a ReplyError with message "".
  return typeof e.message === 'string' ? e.message : String(e);
}

function native(v, depth = 0) {
  const t = typeName(v);
  if (depth > 64) return { kind: 'other', type: t, text: '<too deep>' };
  if (v === null || v === undefined) return { kind: 'nil', type: t };
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
    return { kind: 'bytes', type: t, b64: Buffer.from(v).toString('base64') };
  }
  switch (typeof v) {
    case 'string': return { kind: 'string', type: t, text: v };
    case 'number': return { kind: 'number', type: t, text: Object.is(v, -0) ? '-0' : String(v) };
    case 'bigint': return { kind: 'bigint', type: t, text: v.toString() };
    case 'boolean': return { kind: 'bool', type: t, text: String(v) };
  }
  if (v instanceof Error) {
    const cls = v.name && v.name !== 'Error' ? v.name : t;
    const kind = SERVER_ERRORS.has(cls) || SERVER_ERRORS.has(t) ? 'error' : 'exception';
    return { kind, type: t, error: { class: cls, message: errorText(v) } };
  }
  if (Array.isArray(v)) {
    // valkey-glide returns maps as GlideRecord: [{key, value}, ...].
    if (v.length > 0 && v.every((e) => e && typeof e === 'object' && !Array.isArray(e) &&
        !Buffer.isBuffer(e) && Object.keys(e).length === 2 && 'key' in e && 'value' in e)) {
      return { kind: 'map', type: 'GlideRecord', pairs: v.map((e) => [native(e.key, depth + 1), native(e.value, depth + 1)]) };
    }
    return { kind: 'list', type: t, elems: v.map((e) => native(e, depth + 1)) };
  }
  if (v instanceof Set) return { kind: 'set', type: t, elems: [...v].map((e) => native(e, depth + 1)) };
  if (v instanceof Map) return { kind: 'map', type: t, pairs: [...v].map(([k, x]) => [native(k, depth + 1), native(x, depth + 1)]) };
  if (typeof v === 'object') {
    return { kind: 'map', type: t, pairs: Object.keys(v).map((k) => [native(k, depth + 1), native(v[k], depth + 1)]) };
  }
  return { kind: 'other', type: t, text: String(v) };
}

// arg: applications pass strings; bytes that are not UTF-8 stay Buffers.
const utf8 = new TextDecoder('utf-8', { fatal: true });
function arg(b64) {
  const b = Buffer.from(b64, 'base64');
  try { return utf8.decode(b); } catch (e) { return b; }
}

function hostPort(addr) {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

// seeds: a cluster configuration's "addr", a comma-separated seed list.
function seeds(addr) {
  return addr.split(',').map(hostPort);
}

// taggedArg is the first argument after the command name that holds a
// non-empty hash tag ("{...}"): the key a cluster client that takes the
// key from its caller (node-redis cluster's sendCommand(firstKey, ...))
// routes by, as the cases' keys all carry the case's tag; undefined if
// none (a random node).
function taggedArg(args) {
  return args.slice(1).find((a) => /\{[^}]+\}/.test(String(a)));
}

// Configurations: one library at one installed version with one set of
// options, driven through one API. Its label (the name in hello, in
// RESPCHECK_LIBS and in reports) is
// <library>-<version>[<options>][/pipeline|/pubsub], the version read from the
// installed package (package.json installs older versions under npm
// aliases: ioredis-5, redis-4, redis-5); the typed-wrapper modes keep their
// labels ioredis-typed and node-redis-typed. A "/pipeline" configuration
// also takes the "batch" op (pipelines and MULTI...EXEC blocks through the
// library's batch API), a "/pubsub" one the "subscribe" and "next" ops
// (the library's subscribe API and what it delivered: see pubsubOps).
const CONFIGS = [
  { family: 'ioredis', mod: 'ioredis-5', protos: [2] },
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3] },
  { family: 'ioredis', mod: 'ioredis', protos: [3], options: { replyMapping: 'resp3' }, tag: '[replyMapping=resp3]' },
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3], options: { stringNumbers: true }, tag: '[stringNumbers=true]' },
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3], batch: true },
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3], typed: true, label: 'ioredis-typed' },
  { family: 'ioredis', name: 'iovalkey', mod: 'iovalkey', protos: [2] },
  { family: 'ioredis', name: 'iovalkey', mod: 'iovalkey', protos: [2], batch: true },
  { family: 'node-redis', mod: 'redis-4', protos: [2] },
  { family: 'node-redis', mod: 'redis-5', protos: [2, 3] },
  { family: 'node-redis', mod: 'redis', protos: [2, 3] },
  { family: 'node-redis', mod: 'redis', protos: [2, 3], typeMapping: { MAP: 'Map', BLOB_STRING: 'Buffer' }, tag: '[typeMapping=Map+Buffer]' },
  { family: 'node-redis', mod: 'redis', protos: [3], typeMapping: { SET: 'Set', DOUBLE: 'String', BIG_NUMBER: 'String' }, tag: '[typeMapping=Set+String]' },
  { family: 'node-redis', mod: 'redis', protos: [2, 3], batch: true },
  { family: 'node-redis', mod: 'redis', protos: [2, 3], typed: true, label: 'node-redis-typed' },
  { family: 'valkey-glide', mod: '@valkey/valkey-glide', protos: [2, 3] },
  { family: 'valkey-glide', mod: '@valkey/valkey-glide', protos: [2, 3], batch: true },
  // Cluster configurations ("/cluster"): the library's cluster client, run
  // against a cluster only; "addr" is then a comma-separated seed list.
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3], cluster: true },
  { family: 'node-redis', mod: 'redis', protos: [2, 3], cluster: true },
  { family: 'valkey-glide', mod: '@valkey/valkey-glide', protos: [2, 3], cluster: true },
  { family: 'ioredis', mod: 'ioredis', protos: [2, 3], pubsub: true },
  { family: 'ioredis', name: 'iovalkey', mod: 'iovalkey', protos: [2], pubsub: true },
  { family: 'node-redis', mod: 'redis-4', protos: [2], pubsub: true },
  { family: 'node-redis', mod: 'redis-5', protos: [2, 3], pubsub: true },
  { family: 'node-redis', mod: 'redis', protos: [2, 3], pubsub: true },
  // RESP3 only: glide's configured subscriptions refuse RESP2
  // ("PubSub subscriptions require RESP3 protocol", build-ts/BaseClient.js
  // line 245 of 2.5.2).
  { family: 'valkey-glide', mod: '@valkey/valkey-glide', protos: [3], pubsub: true },
];

// installedVersion reads a package's version without loading it; a
// package not installed has the version package.json pins for it
// ("npm:ioredis@5.11.1" or "6.0.0"), so its label stays the same and
// loading it reports what is missing.
function installedVersion(mod) {
  const path = require('path');
  const fs = require('fs');
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', mod, 'package.json'), 'utf8')).version;
  } catch (e) {
    const spec = (JSON.parse(fs.readFileSync(path.join(__dirname, 'package.json'), 'utf8')).dependencies || {})[mod] || '';
    return spec.slice(spec.lastIndexOf('@') + 1) || null;
  }
}

function labelOf(cfg) {
  if (cfg.label) return cfg.label;
  const v = installedVersion(cfg.mod);
  return (cfg.name || cfg.family) + (v ? '-' + v : '') + (cfg.tag || '') + (cfg.batch ? '/pipeline' : '') + (cfg.cluster ? '/cluster' : '') + (cfg.pubsub ? '/pubsub' : '');
}

// "node adapter.js --list" prints every configuration's label, one a line
// (respcheck starts one adapter process per configuration).
if (process.argv.includes('--list')) {
  realWrite(CONFIGS.map(labelOf).join('\n') + '\n');
  process.exit(0);
}

// RESPCHECK_LIBS (comma-separated labels) limits the configurations this
// process loads.
const only = (process.env.RESPCHECK_LIBS || '').split(',').filter(Boolean);
const wanted = (label) => only.length === 0 || only.includes(label);

// Each library: versions, protocols, connect(addr, proto) -> {do(args), close()}.
const libs = {};

// wholeOutcome: a batch whose library answered for it as a whole (an
// error it raised, the nil of an aborted WATCH): that outcome is each
// command's value and the transaction's.
function wholeOutcome(n, v) {
  const x = native(v);
  return { values: Array.from({ length: n }, () => x), exec: x };
}

// ioredis and iovalkey (a fork of ioredis 5): call() for one command;
// pipeline(cmds).exec() and multi(cmds).exec() for a batch, each command
// ['call', command, ...args] (the batch methods are the command names), which resolve
// with [error, result] per command (multi: null after a WATCH conflict,
// and a rejection with the EXEC error, such as EXECABORT, with the
// queue-time errors in its previousErrors).
const ioredisFamily = {
  api(cfg) {
    const opts = cfg.options ? 'new Redis({ ' + Object.entries(cfg.options).map(([k, v]) => k + ': ' + JSON.stringify(v)).join(', ') + ' }), ' : '';
    if (cfg.typed) return 'typed wrappers (set(key, value, ...options), ...)';
    if (cfg.cluster) return "new Redis.Cluster(seeds).call(command, ...args); cluster.multi([['call', command, ...args], ...]).exec() for MULTI … EXEC; one Cluster per case connection";
    if (cfg.batch) return "redis.pipeline([['call', command, ...args], ...]).exec(), redis.multi([['call', command, ...args], ...]).exec(); other steps redis.call(command, ...args)";
    return opts + 'redis.call(command, ...args)';
  },
  async connect(m, cfg, label, addr, proto) {
    const Redis = m.mod.default || m.mod.Redis || m.mod;
    const { host, port } = hostPort(addr);
    const opts = { host, port, maxRetriesPerRequest: 0, retryStrategy: () => null,
      autoResendUnfulfilledCommands: false, lazyConnect: true, connectTimeout: 5000, ...cfg.options };
    if (cfg.protos.includes(3)) opts.protocol = proto;
    const c = new Redis(opts);
    c.on('error', (e) => log(label, 'error event:', e && e.message));
    await c.connect();
    return {
      do: (args) => c.call(args[0], ...args.slice(1)),
      batch: (mode, cmds) => ioredisBatch(c, mode, cmds),
      close: () => c.disconnect(), client: c,
    };
  },
  // Redis.Cluster routes each command by its key (the key positions of
  // @ioredis/commands), a keyless one to a random node, and follows MOVED
  // and ASK (maxRedirections, 16).
  async clusterConnect(m, cfg, label, addr, proto) {
    const Redis = m.mod.default || m.mod.Redis || m.mod;
    const redisOptions = { maxRetriesPerRequest: 0, connectTimeout: 5000, autoResendUnfulfilledCommands: false };
    if (cfg.protos.includes(3)) redisOptions.protocol = proto;
    const c = new Redis.Cluster(seeds(addr), { redisOptions, clusterRetryStrategy: () => null, lazyConnect: true });
    c.on('error', (e) => log(label, 'error event:', e && e.message));
    await c.connect();
    return {
      do: (args) => c.call(args[0], ...args.slice(1)),
      // Cluster#multi routes the transaction by its commands' keys (one
      // slot, else it rejects), on the connection of that slot's node.
      batch: (mode, cmds) => ioredisBatch(c, mode, cmds),
      close: () => c.disconnect(), client: c,
    };
  },
};

// ioredisBatch runs cmds through c.multi(list).exec() or
// c.pipeline(list).exec() (c a Redis or a Redis.Cluster).
async function ioredisBatch(c, mode, cmds) {
  const list = cmds.map((a) => ['call', ...a]);
  let res;
  try {
    res = await (mode === 'multi' ? c.multi(list) : c.pipeline(list)).exec();
  } catch (e) {
    return wholeOutcome(cmds.length, e);
  }
  if (!Array.isArray(res)) return wholeOutcome(cmds.length, res);
  return { values: res.map(([err, v]) => native(err || v)) };
}

// node-redis ("redis"): sendCommand(args) for one command (through
// withTypeMapping(...) for a typeMapping configuration); a batch is
// multi() with addCommand(args) per command, then exec() (MULTI...EXEC) or
// execAsPipeline(); a reply that is an error makes exec reject with a
// MultiErrorReply that holds every reply (.replies), and a nil EXEC with a
// WatchError.
// nodeRedisCreate is m.mod.createClient(opts). node-redis 5 and later
// build the client's class (every command attached) in createClient unless
// the options serialise as the last call's did (a single-entry cache keyed
// by their JSON: @redis/client lib/single-entry-cache.js); every session's
// proxy listens on a port of its own, so each createClient built the class
// again (30-100 ms of CPU). For those versions the class createClient built
// first, per configuration and options but the socket, makes the later
// clients as createClient does: Object.create(new Client(opts)) (the
// constructor reads no module, function or script option).
const nodeRedisClasses = new Map(); // m -> JSON of opts but socket -> Client
function nodeRedisCreate(m, opts) {
  const key = JSON.stringify({ ...opts, socket: undefined });
  if (!nodeRedisClasses.has(m)) nodeRedisClasses.set(m, new Map());
  const Client = nodeRedisClasses.get(m).get(key);
  if (Client) return Object.create(new Client(opts));
  const c = m.mod.createClient(opts);
  if (Number(m.version.split('.')[0]) >= 5) nodeRedisClasses.get(m).set(key, Object.getPrototypeOf(c).constructor);
  return c;
}

const nodeRedisFamily = {
  api(cfg) {
    if (cfg.typed) return 'typed wrappers (set(key, value, { expiration, condition, matchValue, GET }), digest(key))';
    if (cfg.cluster) return 'createCluster({ rootNodes }).sendCommand(firstKey, false, args), firstKey the first argument with a hash tag; cluster.multi().addCommand(firstKey, false, args)...exec() for MULTI … EXEC; one cluster per case connection';
    const tm = cfg.typeMapping ? 'client.withTypeMapping({ ' + Object.entries(cfg.typeMapping).map(([k, v]) => '[RESP_TYPES.' + k + ']: ' + v).join(', ') + ' }).' : 'client.';
    if (cfg.batch) return tm + 'multi().addCommand(args)...exec(), ' + tm + 'multi().addCommand(args)...execAsPipeline(); other steps ' + tm + 'sendCommand(args)';
    return tm + 'sendCommand(args)';
  },
  async connect(m, cfg, label, addr, proto) {
    const { host, port } = hostPort(addr);
    const opts = { socket: { host, port, reconnectStrategy: false, connectTimeout: 5000 } };
    if (cfg.protos.includes(3)) opts.RESP = proto;
    // node-redis 5+ has a client-side cache (RESP3 only): its tracking
    // connection reports each invalidated key by the cache's 'invalidate'
    // event.
    if (cfg.pubsub && proto === 3) opts.clientSideCache = { ttl: 0, maxEntries: 0 };
    const base = nodeRedisCreate(m, opts);
    base.on('error', (e) => log(label, 'error event:', e && e.message));
    await base.connect();
    let c = base;
    if (cfg.typeMapping) {
      const tm = {};
      for (const [k, v] of Object.entries(cfg.typeMapping)) tm[m.mod.RESP_TYPES[k]] = { Map, Buffer, Set, String, Array }[v];
      c = base.withTypeMapping(tm);
    }
    return {
      do: (args) => c.sendCommand(args),
      async batch(mode, cmds) {
        const multi = c.multi();
        for (const a of cmds) multi.addCommand(a);
        return nodeRedisExec(multi, mode, cmds.length);
      },
      close: () => (base.destroy ? base.destroy() : base.disconnect()), client: c, base,
    };
  },
  // createCluster: sendCommand routes by the firstKey its caller gives
  // (none: a random node) and follows MOVED and ASK (maxCommandRedirections, 16).
  async clusterConnect(m, cfg, label, addr, proto) {
    const socket = { reconnectStrategy: false, connectTimeout: 5000 };
    const opts = { rootNodes: seeds(addr).map(({ host, port }) => ({ socket: { host, port, ...socket } })), defaults: { socket } };
    if (cfg.protos.includes(3)) opts.RESP = proto;
    const c = m.mod.createCluster(opts);
    c.on('error', (e) => log(label, 'error event:', e && e.message));
    await c.connect();
    return {
      do: (args) => c.sendCommand(taggedArg(args), false, args),
      // The cluster's multi() routes by the first firstKey its commands
      // give (addCommand(firstKey, isReadonly, args)), on that slot's
      // node.
      async batch(mode, cmds) {
        const multi = c.multi();
        for (const a of cmds) multi.addCommand(taggedArg(a), false, a);
        return nodeRedisExec(multi, mode, cmds.length);
      },
      close: () => (c.destroy ? c.destroy() : c.disconnect()), client: c,
    };
  },
};

// nodeRedisExec runs a node-redis multi: exec() (MULTI...EXEC) or
// execAsPipeline(); a MultiErrorReply's replies are each command's value.
async function nodeRedisExec(multi, mode, n) {
  try {
    const res = await (mode === 'multi' ? multi.exec() : multi.execAsPipeline());
    return { values: res.map((v) => native(v)) };
  } catch (e) {
    if (e && Array.isArray(e.replies) && e.replies.length === n) {
      return { values: e.replies.map((v) => native(v)) };
    }
    return wholeOutcome(n, e);
  }
}

// valkey-glide: customCommand(args) for one command; a batch is a
// Batch(isAtomic) of customCommand(args), run by exec(batch, false): errors
// come back in the list (raiseOnError false), null after a WATCH conflict.
const glideFamily = {
  api(cfg) {
    if (cfg.batch) return 'client.exec(new Batch(true|false).customCommand(args)..., false); other steps client.customCommand(args)';
    if (cfg.cluster) return 'GlideClusterClient.customCommand(args); client.exec(new ClusterBatch(true).customCommand(args)..., false) for MULTI … EXEC; one GlideClusterClient per case connection';
    return 'client.customCommand(args)';
  },
  init(m) {
    try { m.mod.Logger.init('off'); } catch (e) { log('glide Logger.init:', e.message); }
  },
  async connect(m, cfg, label, addr, proto) {
    const { host, port } = hostPort(addr);
    const c = await m.mod.GlideClient.createClient({
      addresses: [{ host, port }], requestTimeout: 600000,
      protocol: proto === 3 ? m.mod.ProtocolVersion.RESP3 : m.mod.ProtocolVersion.RESP2,
    });
    return {
      do: (args) => c.customCommand(args),
      batch: (mode, cmds) => glideExec(c, new m.mod.Batch(mode === 'multi'), cmds),
      close: () => c.close(), client: c,
    };
  },
  // GlideClusterClient routes customCommand by the keys it finds in args
  // itself (no route given), a keyless one to a random node, and follows
  // MOVED and ASK.
  async clusterConnect(m, cfg, label, addr, proto) {
    const c = await m.mod.GlideClusterClient.createClient({
      addresses: seeds(addr), requestTimeout: 600000,
      protocol: proto === 3 ? m.mod.ProtocolVersion.RESP3 : m.mod.ProtocolVersion.RESP2,
    });
    return {
      do: (args) => c.customCommand(args),
      // An atomic ClusterBatch goes to the node of its commands' slot.
      batch: (mode, cmds) => glideExec(c, new m.mod.ClusterBatch(mode === 'multi'), cmds),
      close: () => c.close(),
    };
  },
};

// glideExec adds each command of cmds to batch b by customCommand(args)
// and runs it by c.exec(b, false).
async function glideExec(c, b, cmds) {
  for (const a of cmds) b.customCommand(a);
  let res;
  try {
    res = await c.exec(b, false);
  } catch (e) {
    return wholeOutcome(cmds.length, e);
  }
  if (!Array.isArray(res)) return wholeOutcome(cmds.length, res);
  return { values: res.map((v) => native(v)) };
}

// Deliveries is the queue of what a library delivered to the user on one
// connection (its events and listeners), read by "next" in order.
class Deliveries {
  constructor() { this.items = []; this.wake = []; }
  put(kind, value) {
    this.items.push({ kind, value });
    const w = this.wake; this.wake = [];
    for (const f of w) f();
  }
  // take resolves with the first item whose kind passes ok, or
  // {kind: "none"} after waitMs.
  async take(waitMs, ok = () => true) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const i = this.items.findIndex((x) => ok(x.kind));
      if (i >= 0) return this.items.splice(i, 1)[0].value;
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'none', type: 'none' };
      await new Promise((res) => {
        const t = setTimeout(res, left);
        this.wake.push(() => { clearTimeout(t); res(); });
      });
    }
  }
}

// delivered is a Native of kind "message": what the library handed the
// user, field by field (kind only where the library tells it: the event
// name), in the library's own types.
function delivered(type, fields) {
  return { kind: 'message', type, pairs: Object.entries(fields).map(([k, v]) => [{ kind: 'string', type: 'field', text: k }, native(v)]) };
}

const unsupported = (why) => ({ kind: 'unsupported', type: 'unsupported', error: { class: 'unsupported', message: why } });
const subscribeMethods = { SUBSCRIBE: 'subscribe', PSUBSCRIBE: 'psubscribe', SSUBSCRIBE: 'ssubscribe',
  UNSUBSCRIBE: 'unsubscribe', PUNSUBSCRIBE: 'punsubscribe', SUNSUBSCRIBE: 'sunsubscribe' };
const messageKinds = ['message', 'pmessage', 'smessage'];

// pubsubOps, per family: where its subscribe API runs ("same": on the
// case connection's client, "own": on a client of its own), its API text,
// setup(conn, got) registering the library's events, subscribe(conn, args,
// got) -> a Native, and delivers(kind) -> null when the library hands the
// user items of that kind, else why not.
const pubsubOps = {
  // ioredis and iovalkey: redis.subscribe(...channels) and the other
  // subscribe methods resolve with the subscription count; messages come
  // as 'message' (channel, message), 'pmessage' (pattern, channel,
  // message) and 'smessage' (channel, message) events; no event per
  // confirmation, no client-side cache and no event for invalidate pushes.
  ioredis: {
    where: 'same',
    api: "redis.subscribe/psubscribe/ssubscribe/unsubscribe/punsubscribe/sunsubscribe(...channels); 'message', 'pmessage', 'smessage' events; other steps redis.call(command, ...args)",
    setup(conn, got) {
      const c = conn.client;
      c.on('message', (channel, message) => got.put('message', delivered("'message' event (channel, message)", { kind: 'message', channel, payload: message })));
      c.on('pmessage', (pattern, channel, message) => got.put('pmessage', delivered("'pmessage' event (pattern, channel, message)", { kind: 'pmessage', pattern, channel, payload: message })));
      c.on('smessage', (channel, message) => got.put('smessage', delivered("'smessage' event (channel, message)", { kind: 'smessage', channel, payload: message })));
    },
    async subscribe(conn, args) {
      const method = subscribeMethods[String(args[0]).toUpperCase()];
      if (typeof conn.client[method] !== 'function') return unsupported('this ioredis has no ' + method + '()');
      return native(await conn.client[method](...args.slice(1)));
    },
    delivers(kind) {
      if (messageKinds.includes(kind)) return null;
      if (kind === 'invalidate') return 'ioredis has no client-side caching API and emits no event for invalidate pushes';
      if (kind === 'pong') return "ioredis resolves PING's promise with the pong; no event";
      return 'ioredis emits no event for a ' + kind + ' frame (a subscribe call resolves with the count)';
    },
  },
  // node-redis: the subscriber is client.duplicate() (as its docs ask), with
  // subscribe(channels, listener), pSubscribe, sSubscribe, unsubscribe,
  // pUnsubscribe, sUnsubscribe (resolving with nothing); a listener gets
  // (message, channel): a pattern listener's pattern is the one it was
  // registered for. Other steps of a subscribed case connection go to the
  // duplicate's sendCommand. node-redis 5+ in RESP3: the case connection's
  // client has clientSideCache, whose 'invalidate' event (one per key, or
  // null for all) is the invalidation; node-redis 4 has no client-side cache.
  'node-redis': {
    where: 'own',
    api: "client.duplicate(): subscribe/pSubscribe/sSubscribe/unsubscribe/pUnsubscribe/sUnsubscribe(channels, listener); createClient({ clientSideCache }) and its 'invalidate' event (5+, RESP3); other steps sendCommand(args)",
    setup(conn, got) {
      const cache = conn.base.clientSideCache;
      if (!cache) return;
      // One event per invalidated key (null: the whole cache), so one
      // item per event: its field is "key", not "keys".
      cache.on('invalidate', (key) => got.put('invalidate', delivered("clientSideCache 'invalidate' event (key)", { kind: 'invalidate', key })));
    },
    async subscribe(conn, args, got) {
      if (!conn.sub) {
        conn.sub = conn.base.duplicate({ clientSideCache: undefined });
        conn.sub.on('error', (e) => log('node-redis subscriber error event:', e && e.message));
        await conn.sub.connect();
        const plain = conn.do;
        conn.do = (a) => (conn.sub ? conn.sub.sendCommand(a) : plain(a));
      }
      const cmd = String(args[0]).toUpperCase();
      const method = { SUBSCRIBE: 'subscribe', PSUBSCRIBE: 'pSubscribe', SSUBSCRIBE: 'sSubscribe',
        UNSUBSCRIBE: 'unsubscribe', PUNSUBSCRIBE: 'pUnsubscribe', SUNSUBSCRIBE: 'sUnsubscribe' }[cmd];
      if (typeof conn.sub[method] !== 'function') return unsupported('this node-redis has no ' + method + '()');
      const chans = args.slice(1);
      let v;
      if (cmd.includes('UNSUBSCRIBE')) {
        v = await (chans.length ? conn.sub[method](chans) : conn.sub[method]());
      } else {
        const kind = { SUBSCRIBE: 'message', PSUBSCRIBE: 'pmessage', SSUBSCRIBE: 'smessage' }[cmd];
        v = await conn.sub[method](chans, (message, channel) => {
          // One listener per call: a pattern listener is registered for
          // one pattern at a time here (the cases subscribe one at a time).
          const f = { kind, channel, payload: message };
          if (kind === 'pmessage') f.pattern = chans.length === 1 ? chans[0] : undefined;
          if (f.pattern === undefined) delete f.pattern;
          got.put(kind, delivered(method + ' listener (message, channel)', f));
        });
      }
      if (v === undefined) return { kind: 'void', type: 'undefined', error: { class: 'void', message: 'node-redis resolves ' + method + '() with undefined; it delivers no confirmation' } };
      return native(v);
    },
    delivers(kind, conn) {
      if (messageKinds.includes(kind)) return null;
      if (kind === 'invalidate') return conn.base.clientSideCache ? null : 'this node-redis configuration has no client-side cache (node-redis 4, or RESP2)';
      return 'node-redis delivers no ' + kind + ' frame to the user (subscribe calls resolve with nothing)';
    },
  },
  // valkey-glide 2.5.2: subscribe(channels, timeoutMs), psubscribe,
  // unsubscribe(channels | null, timeoutMs), punsubscribe at runtime (the
  // blocking forms, which wait for the confirmation), resolving with
  // nothing; messages by getPubSubMessage() ({message, channel, pattern});
  // ssubscribe exists on GlideClusterClient only; no client-side cache.
  'valkey-glide': {
    where: 'same',
    api: 'client.subscribe/psubscribe/unsubscribe/punsubscribe(channels, timeoutMs) at runtime; getPubSubMessage(); other steps client.customCommand(args)',
    setup() {},
    async subscribe(conn, args, got) {
      const c = conn.client;
      const cmd = String(args[0]).toUpperCase();
      const method = subscribeMethods[cmd];
      if (typeof c[method] !== 'function') return unsupported('GlideClient ' + c.constructor.name + ' has no ' + method + '() (sharded pub/sub is GlideClusterClient only)');
      const chans = args.slice(1);
      if (cmd.includes('UNSUBSCRIBE')) await c[method](chans.length ? new Set(chans) : null, 4000);
      else await c[method](new Set(chans), 4000);
      if (!conn.pump) {
        conn.pump = (async () => {
          for (;;) {
            const m = await c.getPubSubMessage();
            const f = { channel: m.channel, payload: m.message };
            if (m.pattern != null) f.pattern = m.pattern;
            got.put(m.pattern != null ? 'pmessage' : 'message', delivered('PubSubMsg (getPubSubMessage)', f));
          }
        })().catch((e) => log('glide getPubSubMessage:', e && e.message));
      }
      return { kind: 'void', type: 'undefined', error: { class: 'void', message: 'valkey-glide resolves ' + method + '() with undefined; it delivers no confirmation' } };
    },
    delivers(kind) {
      if (messageKinds.includes(kind)) return null;
      if (kind === 'invalidate') return 'valkey-glide has no client-side caching API that reports invalidations';
      return 'valkey-glide delivers no ' + kind + ' frame to the user';
    },
  },
};

// pubsubConfig makes lib a "/pubsub" configuration: its connections get
// subscribe(args) and next(kind, waitMs) (see pubsubOps).
function pubsubConfig(lib, ops, m, cfg, label) {
  lib.pubsub = ops.where;
  lib.api = ops.api;
  const connect = lib.connect;
  lib.connect = async (addr, proto) => {
    const conn = await connect(addr, proto);
    const got = new Deliveries();
    ops.setup(conn, got);
    conn.subscribe = (args) => ops.subscribe(conn, args, got);
    conn.next = async (kind, waitMs) => {
      const why = ops.delivers(kind, conn);
      if (why) return unsupported(why);
      return got.take(waitMs);
    };
    const close = conn.close;
    conn.close = () => { if (conn.sub) { try { conn.sub.destroy ? conn.sub.destroy() : conn.sub.disconnect(); } catch (e) { log('close:', e.message); } } return close(); };
    return conn;
  };
}

const families = { 'ioredis': ioredisFamily, 'node-redis': nodeRedisFamily, 'valkey-glide': glideFamily };
ioredisFamily.pubsub = pubsubOps.ioredis;
nodeRedisFamily.pubsub = pubsubOps['node-redis'];
glideFamily.pubsub = pubsubOps['valkey-glide'];

// RESPCHECK_ADAPTER_SELFTEST=1 adds "selftest", a library for respcheck's
// own tests of the adapter: it sends each command on a raw socket and
// resolves with the first line's payload, except that ECHO throw-outside
// throws from an event handler after the reply (as a library's parser
// callback might), ECHO throw-later throws from a timer once the call has
// answered (outside any call), ECHO throw-empty rejects with an AggregateError whose
// message is empty, ECHO hang never resolves (the reply is dropped) and
// ECHO freeze blocks the event loop for 6 s before dropping its reply.
if (process.env.RESPCHECK_ADAPTER_SELFTEST === '1') {
  const net = require('net');
  libs.selftest = {
    api: 'raw socket (self-test)',
    version: 'test', protos: [2],
    async connect(addr) {
      const { host, port } = hostPort(addr);
      const sock = net.connect(port, host);
      await new Promise((res, rej) => { sock.once('connect', res); sock.once('error', rej); });
      let buf = Buffer.alloc(0);
      let waiting = null;
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        const m = /^\$(\d+)\r\n/.exec(buf.toString('latin1'));
        if (!waiting || !m || buf.length < m[0].length + Number(m[1]) + 2) return;
        const payload = buf.slice(m[0].length, m[0].length + Number(m[1])).toString();
        buf = buf.slice(m[0].length + Number(m[1]) + 2);
        const w = waiting; waiting = null;
        if (payload === 'throw-outside') throw new Error('thrown in the data handler');
        if (payload === 'hang') return;
        if (payload === 'freeze') { for (const end = Date.now() + 6000; Date.now() < end;); return; }
        w.resolve(payload);
        if (payload === 'throw-later') setTimeout(() => { throw new Error('thrown after the call'); }, 5);
      });
      return {
        do(args) {
          const enc = (a) => '$' + Buffer.byteLength(a) + '\r\n' + a + '\r\n';
          return new Promise((resolve, reject) => {
            if (String(args[1]) === 'throw-empty') { reject(new AggregateError([new Error('first'), new Error('second')], '')); return; }
            waiting = { resolve, reject };
            sock.write('*' + args.length + '\r\n' + args.map((a) => enc(String(a))).join(''));
          });
        },
        close: () => sock.destroy(),
      };
    },
  };
}

// Typed-wrapper mode (ioredis-typed, node-redis-typed, on the newest
// installed version): a "typed" request runs the step through the
// library's typed method when the installed version declares one for it
// (see setShape and typedModes), and answers {"wrapper": ""} without
// sending anything otherwise.

// setShape parses SET key value [IFEQ|IFNE|IFDEQ|IFDNE match] [GET], the
// forms both typed wrappers below declare; null for any other SET.
function setShape(args) {
  if (args.length < 3 || String(args[0]).toUpperCase() !== 'SET') return null;
  const out = { key: args[1], value: args[2], cond: null, match: undefined, get: false };
  let i = 3;
  const opt = (j) => (typeof args[j] === 'string' ? args[j].toUpperCase() : null);
  if (['IFEQ', 'IFNE', 'IFDEQ', 'IFDNE'].includes(opt(i)) && i + 1 < args.length) {
    out.cond = opt(i);
    out.match = args[i + 1];
    i += 2;
  }
  if (opt(i) === 'GET') { out.get = true; i++; }
  return i === args.length ? out : null;
}

// typedModes make a configuration typed: lib.connect's connections get
// typed(args) -> {wrapper, call} (with a limit when the call respells
// args), {wrapper, limit} (the wrapper cannot express args) or null (no
// wrapper).
const typedModes = {
  // ioredis 6.0.0 built/utils/RedisCommander.d.ts declares set(key, value,
  // 'IFEQ'|'IFNE', v | 'IFDEQ'|'IFDNE', digest [, 'GET']) (lines 3244-3250,
  // 3296-3299), set(key, value, 'GET') (3292) and set(key, value) (3305), but
  // no digest(): DIGEST has no typed wrapper there.
  ioredis(lib, label) {
    // The client list prints notes as "unavailable: ...".
    lib.note = label + ' ' + lib.version + ': typed DIGEST wrapper: ioredis ' + lib.version + ' declares no digest() in ' +
      'built/utils/RedisCommander.d.ts; DIGEST steps are skipped in typed mode';
    typedConnect(lib, (conn, args) => {
      const s = setShape(args);
      if (!s) return null;
      const rest = [];
      let shown = 'set(key, value';
      if (s.cond) { rest.push(s.cond, s.match); shown += ", '" + s.cond + "', match"; }
      if (s.get) { rest.push('GET'); shown += ", 'GET'"; }
      return { wrapper: shown + ')', call: () => conn.client.set(s.key, s.value, ...rest) };
    });
  },
  // node-redis 6.3.1 (@redis/client 6.3.1) declares set(key, value, { condition:
  // 'NX'|'XX'|'IFEQ'|'IFNE'|'IFDEQ'|'IFDNE', matchValue, GET }) in
  // dist/lib/commands/SET.d.ts (lines 42, 46, 55) and digest(key) in
  // dist/lib/commands/index.d.ts (line 2306, "@experimental").
  'node-redis'(lib) {
    typedConnect(lib, (conn, args) => {
      const cmd = String(args[0]).toUpperCase();
      if (cmd === 'DIGEST' && args.length === 2) {
        return { wrapper: 'digest(key)', call: () => conn.client.digest(args[1]) };
      }
      if (cmd === 'SET' && args.length >= 3) return nodeRedisSet(conn, args, lib);
      return null;
    });
  },
};

// nodeRedisSet runs SET key value [options] through node-redis's
// set(key, value, { expiration, condition, matchValue, GET }): one
// expiry (EX, PX, EXAT, PXAT or KEEPTTL), one condition (NX, XX, IFEQ,
// IFNE, IFDEQ, IFDNE), sent in that order, then GET
// (dist/lib/commands/SET.js parseCommand). Options it has no room for
// answer a limit (nothing sent); options out of its order are sent with
// a limit saying so (the proxy checks the rest).
function nodeRedisSet(conn, args, lib) {
  const src = 'set() in @redis/client dist/lib/commands/SET.js, node-redis ' + lib.version;
  const limit = (why) => ({ wrapper: 'set(key, value, options)', limit: why + ' (' + src + ')' });
  const shown = [];
  const opts = {};
  const order = [];
  for (let i = 3; i < args.length; i++) {
    const o = typeof args[i] === 'string' ? args[i].toUpperCase() : '';
    if (['EX', 'PX', 'EXAT', 'PXAT', 'KEEPTTL'].includes(o)) {
      if (opts.expiration) return limit('options.expiration holds one expiry: ' + o + ' after another cannot be sent');
      if (o === 'KEEPTTL') {
        opts.expiration = 'KEEPTTL';
        shown.push("expiration: 'KEEPTTL'");
      } else {
        if (i + 1 >= args.length) return limit(o + ' without its time cannot be sent');
        // A time that is not UTF-8 text (a Buffer here) would go out
        // as value.toString(): not what the step sends.
        if (typeof args[i + 1] !== 'string') return limit('expiration.value is a number, sent as its text: ' + o + "'s time is not text");
        opts.expiration = { type: o, value: args[++i] };
        shown.push("expiration: { type: '" + o + "', value }");
      }
      order.push(0);
    } else if (['NX', 'XX', 'IFEQ', 'IFNE', 'IFDEQ', 'IFDNE'].includes(o)) {
      if (opts.condition) return limit('options.condition holds one condition: ' + opts.condition + ' and ' + o + ' cannot both be sent');
      opts.condition = o;
      shown.push("condition: '" + o + "'");
      if (o.startsWith('IF')) {
        if (i + 1 >= args.length) return limit(o + ' without its value cannot be sent');
        opts.matchValue = args[++i];
        shown.push('matchValue');
      }
      order.push(1);
    } else if (o === 'GET') {
      if (opts.GET) return limit('options.GET is one boolean: GET twice cannot be sent');
      opts.GET = true;
      shown.push('GET: true');
      order.push(2);
    } else {
      return limit('no option for ' + JSON.stringify(String(args[i])));
    }
  }
  const wrapper = shown.length ? 'set(key, value, { ' + shown.join(', ') + ' })' : 'set(key, value)';
  const call = { wrapper, call: () => (shown.length ? conn.client.set(args[1], args[2], opts) : conn.client.set(args[1], args[2])) };
  if (order.some((o, k) => k > 0 && o < order[k - 1])) {
    call.limit = "set() sends SET's options in its own order: the expiry, the condition, GET (" + src + ')';
  }
  return call;
}

function typedConnect(lib, wrap) {
  lib.typed = true;
  const connect = lib.connect;
  lib.connect = async (addr, proto) => {
    const conn = await connect(addr, proto);
    conn.typed = (args) => wrap(conn, args);
    return conn;
  };
}

for (const cfg of CONFIGS) {
  const label = labelOf(cfg);
  if (!wanted(label)) continue;
  const m = load(cfg.mod);
  if (m.error) { libs[label] = { error: m.error }; continue; }
  const fam = families[cfg.family];
  if (fam.init) fam.init(m);
  libs[label] = {
    api: fam.api(cfg), version: m.version, source: m.source, protos: cfg.protos, batch: cfg.batch, clusterTx: cfg.cluster,
    connect: (addr, proto) => (cfg.cluster ? fam.clusterConnect : fam.connect)(m, cfg, label, addr, proto),
  };
  if (cfg.pubsub) pubsubConfig(libs[label], fam.pubsub, m, cfg, label);
  if (cfg.typed) typedModes[cfg.family](libs[label], label);
}

// Sessions and pinned connections; calls of one connection run in order.
const sessions = new Map();

function connOf(s, name) {
  let c = s.conns.get(name);
  if (!c) {
    c = { chain: Promise.resolve(), client: null };
    s.conns.set(name, c);
  }
  return c;
}

async function doCall(s, c, args) {
  if (!c.client) c.client = await s.lib.connect(s.addr, s.proto);
  return c.client.do(args);
}

function handle(req) {
  const id = req.id;
  switch (req.op) {
    case 'hello': {
      const libraries = Object.entries(libs).map(([name, l]) =>
        l.error ? { name, error: l.error } : { name, version: l.version, source: l.source, protos: l.protos, typed: l.typed, batch: l.batch, cluster_tx: l.clusterTx, pubsub: l.pubsub, note: l.note, api: l.api });
      send({ id, libraries });
      return;
    }
    case 'open': {
      const lib = libs[req.lib];
      if (!lib || lib.error) { send({ id, error: 'library not available: ' + req.lib }); return; }
      sessions.set(req.session, { lib, addr: req.addr, proto: req.proto, conns: new Map() });
      send({ id, ok: true });
      return;
    }
    case 'do': {
      const s = sessions.get(req.session);
      if (!s) { send({ id, error: 'no session ' + req.session }); return; }
      const c = connOf(s, req.conn);
      inflight.set(id, { c, session: req.session });
      const args = req.args.map(arg);
      c.chain = c.chain.then(() => doCall(s, c, args)).then(
        (v) => send({ id, value: native(v) }),
        (e) => send({ id, value: native(e instanceof Error ? e : new Error(String(e))) }));
      return;
    }
    case 'batch': {
      // A pipeline (mode "pipeline") or a MULTI...EXEC block (mode "multi",
      // cmds without MULTI and EXEC) through the library's batch API:
      // {"values": [one Native per command], "exec": the transaction's
      // outcome when the library gave one for it as a whole}.
      const s = sessions.get(req.session);
      if (!s) { send({ id, error: 'no session ' + req.session }); return; }
      if (!s.lib.batch && !(s.lib.clusterTx && req.mode === 'multi')) { send({ id, error: 'library has no batch op' }); return; }
      if (req.mode !== 'pipeline' && req.mode !== 'multi') { send({ id, error: 'unknown batch mode ' + req.mode }); return; }
      const c = connOf(s, req.conn);
      inflight.set(id, { c, session: req.session });
      const cmds = req.cmds.map((a) => a.map(arg));
      c.chain = c.chain.then(async () => {
        if (!c.client) c.client = await s.lib.connect(s.addr, s.proto);
        send({ id, ...await c.client.batch(req.mode, cmds) });
      }).catch((e) => send({ id, ...wholeOutcome(cmds.length, e instanceof Error ? e : new Error(String(e))) }));
      return;
    }
    case 'typed': {
      // Like "do", through the library's typed wrapper for args; answers
      // {"wrapper": ""} without sending anything when there is none.
      const s = sessions.get(req.session);
      if (!s) { send({ id, error: 'no session ' + req.session }); return; }
      if (!s.lib.typed) { send({ id, error: 'library has no typed mode' }); return; }
      const c = connOf(s, req.conn);
      inflight.set(id, { c, session: req.session });
      const args = req.args.map(arg);
      c.chain = c.chain.then(async () => {
        if (!c.client) c.client = await s.lib.connect(s.addr, s.proto);
        const t = c.client.typed(args);
        if (!t) { send({ id, wrapper: '' }); return; }
        // A limit without a call: the wrapper cannot express args.
        if (!t.call) { send({ id, wrapper: t.wrapper, limit: t.limit }); return; }
        const lim = t.limit ? { limit: t.limit } : {};
        try {
          send({ id, wrapper: t.wrapper, ...lim, value: native(await t.call()) });
        } catch (e) {
          send({ id, wrapper: t.wrapper, ...lim, value: native(e instanceof Error ? e : new Error(String(e))) });
        }
      }).catch((e) => send({ id, value: native(e instanceof Error ? e : new Error(String(e))) }));
      return;
    }
    case 'subscribe':
    case 'next': {
      // A (P|S)(UN)SUBSCRIBE through the library's subscribe API, or the
      // next item the library delivered for a frame of req.kind (see
      // pubsubOps).
      const s = sessions.get(req.session);
      if (!s) { send({ id, error: 'no session ' + req.session }); return; }
      if (!s.lib.pubsub) { send({ id, error: 'library has no subscribe API' }); return; }
      const c = connOf(s, req.conn);
      inflight.set(id, { c, session: req.session });
      const args = (req.args || []).map(arg);
      c.chain = c.chain.then(async () => {
        if (!c.client) c.client = await s.lib.connect(s.addr, s.proto);
        const v = req.op === 'next' ? await c.client.next(req.kind, req.wait_ms) : await c.client.subscribe(args);
        send({ id, value: v });
      }).catch((e) => send({ id, value: native(e instanceof Error ? e : new Error(String(e))) }));
      return;
    }
    case 'settle': {
      // What the session's library threw outside any call, once the
      // bytes already delivered to its sockets have been handled: the
      // event loop turns twice, wait_ms apart (a frame no call waits for,
      // such as a message on a connection subscribed through the generic
      // command API, is parsed in one of them).
      if (!sessions.has(req.session)) { send({ id, error: 'no session ' + req.session }); return; }
      const wait = Math.min(Math.max(req.wait_ms || 0, 0), 1000);
      setTimeout(() => setImmediate(() => setTimeout(() => {
        const thrown = thrownOutside.get(req.session) || [];
        thrownOutside.delete(req.session);
        send({ id, thrown });
      }, wait)), wait);
      return;
    }
    case 'close': {
      const s = sessions.get(req.session);
      sessions.delete(req.session);
      thrownOutside.delete(req.session);
      // Calls still in flight (a hung session's) are answered now: the
      // caller stopped waiting, and a promise that never settles would
      // keep its waiter for the life of the process.
      for (const [cid, f] of inflight) {
        if (f.session === req.session) send({ id: cid, error: 'session closed' });
      }
      if (s) {
        for (const c of s.conns.values()) {
          try { if (c.client) c.client.close(); } catch (e) { log('close:', e.message); }
        }
      }
      send({ id, ok: true });
      return;
    }
  }
  send({ id, error: 'unknown op ' + req.op });
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let req;
  try { req = JSON.parse(line); } catch (e) { log('bad request:', e.stack || e); return; }
  try { sessionContext.run(req.session, () => handle(req)); } catch (e) { log('request failed:', e.stack || e); }
});
rl.on('close', () => setTimeout(() => process.exit(0), 200));
process.on('unhandledRejection', (e) => log('unhandled rejection:', e && e.stack || e));
// A library that throws from its own event handler (a parser callback, a
// socket event) must not take every later result of the process with it:
// the calls in flight get the exception as their value (a crash for that
// step), and the process goes on.
process.on('uncaughtException', (e) => {
  log('uncaught exception:', e && e.stack || e);
  const err = e instanceof Error ? e : new Error(String(e));
  const message = 'thrown outside the call, in the library: ' + errorText(err);
  // The session whose library threw; undefined when the exception came
  // from outside every session's context (then every call in flight
  // gets it, as nothing tells them apart).
  const session = sessionContext.getStore();
  const calls = [...inflight].filter(([, f]) => session === undefined || f.session === session);
  if (calls.length === 0 && sessions.has(session)) {
    if (!thrownOutside.has(session)) thrownOutside.set(session, []);
    thrownOutside.get(session).push(errorText(err));
  }
  for (const [id, f] of calls) {
    // The call will never settle: later calls on its connection must not
    // queue behind it (the library's own state is what the canary tests).
    f.c.chain = Promise.resolve();
    send({ id, value: { kind: 'exception', type: 'uncaughtException', error: { class: err.name || 'Error', message } } });
  }
});
