#!/usr/bin/python3.11
"""respcheck client-view adapter for redis-py.

Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
stdin/stdout; logs go to stderr. Each named case connection is its own
redis.Redis(single_connection_client=True), so execute_command runs on a
pinned connection with redis-py's response callbacks, exactly as an
application calling r.execute_command('SET', ...) would. Values are reported
as redis-py returns them (bytes stay bytes, bools stay bools); nothing is
normalised. Run one process per redis-py version (PYTHONPATH selects it).

One process drives several configurations of its redis-py (see CONFIGS):
the pure-Python parser, the hiredis parser, no response callbacks,
decode_responses=True, the pipeline/transaction API (the "batch" op), and
the pub/sub API (the "subscribe" and "next" ops: Redis.pubsub()), and on
redis-py 6 and later its typed command methods (redis-py-typed: the "typed"
op, see typed_call).
The parser class every configuration asks for is checked on each new
connection: a connection that reads with another parser ends the process
with a message, so no configuration reports what another parser decoded.
"""
import base64
import importlib
import inspect
import json
import os
import queue
import subprocess
import sys
import threading
import traceback

import redis

OUT = sys.stdout
OUT_LOCK = threading.Lock()
NAME = "redis-py-" + redis.__version__
MAJOR = int(redis.__version__.split(".")[0])
# redis-py before 5 speaks RESP2 only (no protocol= argument).
PROTOS = [2, 3] if MAJOR >= 5 else [2]


def source():
    """Where this redis-py comes from: Debian's python3-redis, or the copy
    of Debian sid's that scripts/install-clients.sh unpacked."""
    path = os.path.dirname(os.path.abspath(redis.__file__))
    if path.startswith("/usr/lib/python3/"):
        try:
            ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-redis"], capture_output=True,
                                 text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            ver = ""
        return "Debian package python3-redis " + (ver or redis.__version__) + " (" + path + ")"
    return "Debian sid package python3-redis " + redis.__version__ + ", unpacked by scripts/install-clients.sh (" + path + ")"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def send(obj):
    line = json.dumps(obj, separators=(",", ":"))
    with OUT_LOCK:
        OUT.write(line + "\n")
        OUT.flush()


def text(kind, typ, s):
    return {"kind": kind, "type": typ, "text": s}


def native(v, depth=0):
    """Describe a redis-py value without normalising it."""
    t = type(v).__name__
    if depth > 64:
        return {"kind": "other", "type": t, "text": "<too deep>"}
    if v is None:
        return {"kind": "nil", "type": "NoneType"}
    if isinstance(v, bool):
        return text("bool", t, "true" if v else "false")
    if isinstance(v, int):
        return text("int", t, str(v))
    if isinstance(v, float):
        return text("float", t, repr(v))
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"kind": "bytes", "type": t, "b64": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, str):
        return text("string", t, v)
    if isinstance(v, (list, tuple)):
        return {"kind": "list", "type": t, "elems": [native(e, depth + 1) for e in v]}
    if isinstance(v, (set, frozenset)):
        return {"kind": "set", "type": t, "elems": [native(e, depth + 1) for e in v]}
    if isinstance(v, dict):
        return {"kind": "map", "type": t,
                "pairs": [[native(k, depth + 1), native(x, depth + 1)] for k, x in v.items()]}
    if isinstance(v, (redis.exceptions.ResponseError, redis.exceptions.WatchError)):
        # WatchError: what Pipeline.execute raises for a nil EXEC
        # (redis/client.py _execute_transaction), the reply's own value.
        return {"kind": "error", "type": t, "error": {"class": t, "message": str(v)}}
    if isinstance(v, BaseException):
        return {"kind": "exception", "type": t, "error": {"class": t, "message": str(v)}}
    return text("other", t, repr(v))


def unsupported(why):
    """The Native of a step the library has no call for."""
    return {"kind": "unsupported", "type": "unsupported", "error": {"class": "unsupported", "message": why}}


def arg(b):
    # Applications pass str; redis-py picks response callbacks by the str
    # command name. Bytes that are not UTF-8 stay bytes.
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def die(msg):
    """Ends the process: a configuration would report another's values."""
    log("AdapterError: respcheck redis-py adapter: " + msg)
    os._exit(70)


# ---- parsers ----------------------------------------------------------------
# redis-py 4.3.4 (redis/connection.py): PythonParser, and HiredisParser when
# hiredis imports (DefaultParser is HiredisParser then: the pure-Python
# configuration asks for PythonParser by name). redis-py 6.4.0
# (redis/_parsers/*.py, redis/connection.py): _RESP2Parser, swapped for
# _RESP3Parser when the connection says HELLO 3 (on_connect_check_health),
# and _HiredisParser only for hiredis >= 3.2.0 (redis/utils.py
# HIREDIS_AVAILABLE).

def parsers():
    """{"python": (class, {proto: class name in use}), "hiredis": ... or an
    error string}."""
    if MAJOR < 5:
        from redis.connection import HiredisParser, PythonParser
        from redis.utils import HIREDIS_AVAILABLE
        py = (PythonParser, {2: "PythonParser"})
        hi = (HiredisParser, {2: "HiredisParser"})
    else:
        from redis._parsers import _HiredisParser, _RESP2Parser
        from redis.utils import HIREDIS_AVAILABLE
        py = (_RESP2Parser, {2: "_RESP2Parser", 3: "_RESP3Parser"})
        hi = (_HiredisParser, {2: "_HiredisParser", 3: "_HiredisParser"})
    if not HIREDIS_AVAILABLE:
        try:
            import hiredis
            found = "hiredis-py " + hiredis.__version__ + " is installed"
        except ImportError:
            found = "hiredis-py is not installed"
        hi = found + " (redis/utils.py: HIREDIS_AVAILABLE is False)"
        if MAJOR >= 5:
            hi += "; redis-py %s uses the hiredis parser only with hiredis-py >= 3.2.0" % redis.__version__
    return {"python": py, "hiredis": hi}


def check_parser(conn, name, want):
    got = type(conn._parser).__name__
    if got != want:
        die("%s reads with %s, not %s" % (name, got, want))


# ---- configurations ---------------------------------------------------------

class Config:
    """One configuration of this redis-py: its label, its Redis() options
    and how its steps are called."""

    def __init__(self, suffix, api, parser="python", callbacks=True, kw=None, batch=False, cluster=False, pubsub=False,
                 typed=False, name=None):
        self.suffix, self.name = suffix, name or NAME + suffix
        self.typed = typed
        self.api, self.parser, self.callbacks, self.batch = api, parser, callbacks, batch
        self.cluster, self.pubsub = cluster, pubsub
        self.kw = kw or {}

    def hello(self, ps):
        lib = {"name": self.name, "version": redis.__version__, "protos": PROTOS, "api": self.api, "source": source()}
        p = ps[self.parser]
        if isinstance(p, str):
            return {"name": self.name, "error": p}
        # The class asked for is the one a new connection builds.
        got = type(redis.Connection(parser_class=p[0])._parser).__name__
        if got != p[1][2]:
            return {"name": self.name, "error": "Connection(parser_class=%s) reads with %s" % (p[0].__name__, got)}
        if self.batch:
            lib["batch"] = True
        if self.typed:
            lib["typed"] = True
        if self.cluster:
            # redis-py 6.x's ClusterPipeline runs transaction=True through
            # its TransactionStrategy (MULTI, the commands and EXEC on one
            # connection of the node of the commands' one slot); 4.3.4's
            # RedisCluster.pipeline raises for it.
            if hasattr(importlib.import_module("redis.cluster"), "TransactionStrategy"):
                lib["cluster_tx"] = True
            else:
                lib["no_tx"] = ("redis-py %s's RedisCluster.pipeline(transaction=True) raises RedisClusterException"
                                "(\"transaction is deprecated in cluster mode\") (redis/cluster.py): no transaction "
                                "API on a cluster" % redis.__version__)
        if self.pubsub:
            # Redis.pubsub() subscribes on a pool connection of its own.
            lib["pubsub"] = "own"
        return lib


EXEC = "Redis.execute_command(*args)"
CONFIGS = [
    Config("", EXEC),
    Config("+hiredis", "Redis(connection_pool=ConnectionPool(parser_class=%s)).execute_command(*args)"
           % ("HiredisParser" if MAJOR < 5 else "_HiredisParser"),
           parser="hiredis"),
    # redis/client.py Redis.parse_response applies response_callbacks[name]
    # only when the name is in the dict: emptied, it returns what the
    # parser read.
    Config("[callbacks=none]", "Redis.execute_command(*args) with Redis.response_callbacks cleared", callbacks=False),
    Config("[decode_responses=True]", "Redis(decode_responses=True).execute_command(*args)",
           kw={"decode_responses": True}),
    Config("/pipeline", "Redis.pipeline(transaction=False) for async sends, Redis.pipeline(transaction=True) "
           "for MULTI…EXEC (Pipeline.execute_command(*args)…, Pipeline.execute(raise_on_error=False)), "
           "on the client's connection; other steps " + EXEC, batch=True),
    # A cluster configuration (run against a cluster only): "addr" is a
    # comma-separated seed list. redis/cluster.py RedisCluster routes each
    # command by its keys (the key positions of COMMAND, which it asks the
    # server), a keyless one to a random primary, and follows MOVED and ASK.
    Config("/cluster", "RedisCluster(startup_nodes=[ClusterNode(host, port), ...]).execute_command(*args)"
           + ("; RedisCluster.pipeline(transaction=True) for MULTI…EXEC (ClusterPipeline.execute_command(*args)…, "
              "execute(raise_on_error=False))" if MAJOR >= 6 else "")
           + ", one RedisCluster per case connection", cluster=True),
    Config("/pubsub", "Redis.pubsub(): PubSub.subscribe/psubscribe/ssubscribe/unsubscribe/punsubscribe/"
           "sunsubscribe(*channels), PubSub.get_message(timeout); PubSub.ping() while subscribed; other steps "
           + EXEC, pubsub=True),
]
# respcheck runs one process per configuration (RESPCHECK_PY_CONFIG names its
# suffix, "" the default one): a hang that gets a process killed, and the
# one-session-at-a-time lock of a process, stay with one configuration.
if MAJOR >= 6:
    CONFIGS.append(Config("-typed", "Redis's command methods, one per command: set(name, value, get=True, ex=...), "
                          "zadd(name, mapping, ...), zrange(name, start, end, withscores=True), incrby(name, amount), "
                          "or the method whose parameters the arguments fill one to one (zscore(name, value), "
                          "hgetall(name), ...); no call otherwise", typed=True, name="redis-py-typed"))
if "RESPCHECK_PY_CONFIG" in os.environ:
    CONFIGS = [c for c in CONFIGS if c.suffix == os.environ["RESPCHECK_PY_CONFIG"]]


class Conn:
    def __init__(self, session, name):
        self.session = session
        self.name = name
        self.client = None
        self.ps = None  # the "/pubsub" configuration's PubSub, once subscribed
        self.q = queue.Queue()
        threading.Thread(target=self.loop, daemon=True, name=name).start()

    def loop(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            rid, fn = item[0], item[1]
            try:
                if self.client is None:
                    self.client = self.session.new_client()
                send(dict(id=rid, **fn(*item[2:])))
            except Exception as e:  # a crash, reported as such
                log(traceback.format_exc())
                send({"id": rid, "value": native(e)})

    def do(self, args):
        if self.ps is not None and self.ps.subscribed:
            return self.pubsub_do(args)
        try:
            return {"value": native(self.client.execute_command(*args))}
        except redis.exceptions.ResponseError as e:
            return {"value": native(e)}

    def typed(self, args):
        """args through redis-py's typed method (typed_call), or no call."""
        t = typed_call(self.client, args)
        if t is None:
            return {"wrapper": ""}
        if isinstance(t, Limit):
            return {"wrapper": t.shown, "limit": t.why}
        shown, call, respelled = t
        out = {"wrapper": shown}
        if respelled:
            out["limit"] = respelled
        try:
            out["value"] = native(call())
        except redis.exceptions.ResponseError as e:
            out["value"] = native(e)
        return out

    def batch(self, mode, cmds):
        """One pipeline (mode "pipeline") or MULTI…EXEC (mode "multi") on
        the client's own connection: redis/client.py Redis.pipeline() takes
        a pool connection, which would not be the case connection (its
        WATCH, its SELECT), so the pipeline is handed the client's."""
        p = self.client.pipeline(transaction=(mode == "multi"))
        try:
            if not self.session.cfg.cluster:
                p.connection = self.client.connection
            # A cluster pipeline finds each command's slot as it is
            # queued, and raises there for one it cannot place.
            for args in cmds:
                p.execute_command(*args)
            vals = p.execute(raise_on_error=False)
        except Exception as e:
            # Pipeline.execute raised for the batch as a whole (EXECABORT:
            # the first queue-time error; a nil EXEC: WatchError): no
            # command has a value of its own.
            if not isinstance(e, (redis.exceptions.ResponseError, redis.exceptions.WatchError)):
                log(traceback.format_exc())
            n = native(e)
            out = {"values": [n] * len(cmds)}
            if mode == "multi":
                out["exec"] = n
            return out
        if len(vals) != len(cmds):
            die("Pipeline.execute returned %d values for %d commands" % (len(vals), len(cmds)))
        return {"values": [native(v) for v in vals]}

    # ---- the "/pubsub" configuration: Redis.pubsub() ----------------------

    def pubsub_do(self, args):
        """A step on a case connection whose PubSub has subscriptions: PING
        through PubSub.ping() and the pong get_message gives; nothing else
        has a call there."""
        if str(args[0]).upper() != "PING":
            return {"value": unsupported("redis-py's PubSub has no call for %s (only the subscribe family and ping)"
                                         % args[0])}
        self.ps.ping(*args[1:2])
        return self.next_message(4)

    def subscribe(self, args):
        """A (P|S)(UN)SUBSCRIBE through the PubSub's method, then the first
        message get_message gives (the confirmation)."""
        if self.ps is None:
            self.ps = self.client.pubsub()
        name = str(args[0]).lower()
        fn = getattr(self.ps, name, None)
        if fn is None:
            return {"value": unsupported("redis-py %s's PubSub has no %s()" % (redis.__version__, name))}
        fn(*args[1:])
        return self.next_message(4)

    def next(self, kind, wait_ms):
        if kind == "invalidate":
            why = ("redis-py %s has no client-side cache" % redis.__version__ if MAJOR < 6 else
                   "redis-py %s's client-side cache (cache_config, RESP3) applies invalidations internally "
                   "(connection.py CacheProxyConnection._on_invalidation_callback): no API reports them" % redis.__version__)
            return {"value": unsupported(why)}
        if self.ps is None:
            return {"value": unsupported("redis-py delivers %s frames through a PubSub only, and this connection has none"
                                         % kind)}
        return self.next_message(wait_ms / 1000.0)

    def next_message(self, timeout):
        m = self.ps.get_message(timeout=timeout)
        if m is None:
            return {"value": {"kind": "none", "type": "none"}}
        if not isinstance(m, dict):
            return {"value": native(m)}
        pairs = [[text("string", "field", "kind"), native(m.get("type"))]]
        if m.get("pattern") is not None:
            pairs.append([text("string", "field", "pattern"), native(m["pattern"])])
        if "channel" in m and m.get("type") != "pong":
            pairs.append([text("string", "field", "channel"), native(m["channel"])])
        field = "count" if str(m.get("type")).endswith("subscribe") else "payload"
        pairs.append([text("string", "field", field), native(m.get("data"))])
        return {"value": {"kind": "message", "type": "dict (PubSub.get_message)", "pairs": pairs}}

    def close(self):
        self.q.put(None)
        try:
            if self.ps is not None:
                self.ps.close()
            if self.client is not None:
                self.client.close()
        except Exception:
            pass


class Session:
    def __init__(self, cfg, addr, proto):
        self.seeds = [(h, int(p)) for h, p in (a.rsplit(":", 1) for a in addr.split(","))]
        self.cfg, self.proto = cfg, proto
        self.host, self.port = self.seeds[0]
        self.conns = {}

    def new_cluster(self):
        from redis.cluster import ClusterNode, RedisCluster
        kw = dict(startup_nodes=[ClusterNode(h, p) for h, p in self.seeds], socket_timeout=None,
                  socket_connect_timeout=5, **self.cfg.kw)
        if MAJOR >= 5:
            kw["protocol"] = self.proto
        return RedisCluster(**kw)

    def new_client(self):
        if self.cfg.cluster:
            return self.new_cluster()
        cls, want = PARSERS[self.cfg.parser]
        # Redis() takes no parser_class: its ConnectionPool passes it to
        # each Connection (redis/connection.py), as do the other options.
        kw = dict(host=self.host, port=self.port, socket_timeout=None, socket_connect_timeout=5,
                  parser_class=cls, **self.cfg.kw)
        try:
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            kw["retry"] = Retry(NoBackoff(), 0)
        except ImportError:
            pass
        if MAJOR >= 5:
            kw["protocol"] = self.proto
        c = redis.Redis(connection_pool=redis.ConnectionPool(**kw), single_connection_client=True)
        # single_connection_client connects at once (HELLO included).
        check_parser(c.connection, self.cfg.name, want[self.proto])
        if not self.cfg.callbacks:
            c.response_callbacks.clear()
        return c

    def conn(self, name):
        c = self.conns.get(name)
        if c is None:
            c = self.conns[name] = Conn(self, name)
        return c

    def close(self):
        for c in self.conns.values():
            c.close()


# ---- the typed configuration (redis-py-typed): Redis's command methods -----

# The methods redis-py declares in redis/commands (core.py ...): a step is
# sent through the method of its command when its arguments map onto the
# method's parameters one to one, or through a wrapper below for the
# commands whose options are keyword arguments; otherwise nothing is sent
# ("wrapper": ""). The method's response callback then runs with the
# options the method passes (parse_set_result's get=True, zset_score_pairs'
# withscores=True), as it does for an application.

SET_FLAGS = {"NX": "nx", "XX": "xx", "GET": "get", "KEEPTTL": "keepttl"}
SET_VALUES = {"EX": "ex", "PX": "px", "EXAT": "exat", "PXAT": "pxat"}


class Limit:
    """A typed method that cannot express a step's arguments: shown is the
    method, why its limit, citing its source (file, line, version)."""

    def __init__(self, shown, why):
        self.shown, self.why = shown, why


def cite(meth):
    """Where meth is defined: "redis/commands/core.py line N, redis-py V"."""
    try:
        f = inspect.getsourcefile(meth) or ""
        line = inspect.getsourcelines(meth)[1]
    except (TypeError, OSError):
        return "redis-py " + redis.__version__
    i = f.rfind("redis/")
    return "%s line %d, redis-py %s" % (f[i:] if i >= 0 else f, line, redis.__version__)


def set_limit(client, why):
    return Limit("set(name, value, ...)", "%s (Redis.set(%s) in %s)" % (
        why, ", ".join(list(inspect.signature(client.set).parameters)), cite(client.set)))


def typed_set(client, rest):
    """SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL] as
    Redis.set(name, value, ex, px, nx, xx, keepttl, get, exat, pxat)
    (redis/commands/core.py): no IFEQ, IFNE, IFDEQ or IFDNE parameter, so
    those forms are a Limit."""
    if len(rest) < 2:
        return None
    kw, i = {}, 2
    while i < len(rest):
        o = rest[i].upper() if isinstance(rest[i], str) else ""
        if o in SET_FLAGS or o in SET_VALUES:
            if (SET_FLAGS.get(o) or SET_VALUES.get(o)) in kw:
                return set_limit(client, "%s is one parameter: %s twice cannot be sent" % (SET_FLAGS.get(o) or SET_VALUES[o], o))
        if o in SET_FLAGS:
            kw[SET_FLAGS[o]] = True
            i += 1
        elif o in SET_VALUES and i + 1 >= len(rest):
            return set_limit(client, "%s without its value cannot be sent" % o)
        elif o in SET_VALUES:
            # An int, as the parameter is typed: one that does not read
            # back as the text sent would change the command.
            try:
                n = int(rest[i + 1])
            except (TypeError, ValueError):
                return set_limit(client, "%s is an int: %r is not one" % (SET_VALUES[o], rest[i + 1]))
            if str(n) != rest[i + 1]:
                return set_limit(client, "%s is an int: %r would go out as %d" % (SET_VALUES[o], rest[i + 1], n))
            kw[SET_VALUES[o]] = n
            i += 2
        else:
            return set_limit(client, "no parameter for the option %r" % (rest[i],))
    shown = ", ".join(["name", "value"] + ["%s=True" % k if v is True else "%s=%s" % (k, k) for k, v in kw.items()])
    return "set(%s)" % shown, lambda: client.set(rest[0], rest[1], **kw)


def typed_amount(method):
    """INCRBY key n and its family as method(name, amount)."""
    def wrap(client, rest):
        if len(rest) != 2:
            return None
        return "%s(name, amount)" % method, lambda: getattr(client, method)(rest[0], rest[1])
    return wrap


def typed_hamount(method):
    """HINCRBY key field n as method(name, key, amount)."""
    def wrap(client, rest):
        if len(rest) != 3:
            return None
        return "%s(name, key, amount)" % method, lambda: getattr(client, method)(rest[0], rest[1], rest[2])
    return wrap


def typed_zadd(client, rest):
    """ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ... as
    Redis.zadd(name, mapping, nx, xx, ch, incr, gt, lt)."""
    flags, i = {}, 1
    while i < len(rest) and isinstance(rest[i], str) and rest[i].upper() in ("NX", "XX", "GT", "LT", "CH", "INCR"):
        flags[rest[i].lower()] = True
        i += 1
    pairs = rest[i:]
    if not rest or len(pairs) < 2 or len(pairs) % 2:
        return None
    mapping = {}
    for k in range(0, len(pairs), 2):
        if pairs[k + 1] in mapping:
            return Limit("zadd(name, mapping)", "mapping is a dict, one score per member: member %r twice cannot be sent "
                         "(Redis.zadd in %s)" % (pairs[k + 1], cite(client.zadd)))
        mapping[pairs[k + 1]] = pairs[k]
    shown = ", ".join(["name", "mapping"] + ["%s=True" % f for f in flags])
    return "zadd(%s)" % shown, lambda: client.zadd(rest[0], mapping, **flags)


def typed_zrange(client, rest):
    """ZRANGE key start stop [WITHSCORES] as Redis.zrange(name, start, end,
    withscores=...)."""
    if len(rest) == 3:
        return "zrange(name, start, end)", lambda: client.zrange(rest[0], rest[1], rest[2])
    if len(rest) == 4 and isinstance(rest[3], str) and rest[3].upper() == "WITHSCORES":
        return "zrange(name, start, end, withscores=True)", lambda: client.zrange(rest[0], rest[1], rest[2], withscores=True)
    return None


TYPED = {
    "SET": typed_set,
    "INCRBY": typed_amount("incrby"), "DECRBY": typed_amount("decrby"), "INCRBYFLOAT": typed_amount("incrbyfloat"),
    "HINCRBY": typed_hamount("hincrby"), "HINCRBYFLOAT": typed_hamount("hincrbyfloat"),
    "ZADD": typed_zadd, "ZRANGE": typed_zrange,
}
# Commands whose method is not named after them; commands whose method is
# not a call of the command (bitfield() returns a BitFieldOperation to
# build, pubsub() a PubSub) or that would change the connection under the
# adapter (SELECT, HELLO, RESET, QUIT, MULTI...).
TYPED_NAMES = {"DEL": "delete", "TYPE": "type"}
# incr() and decr() send INCRBY and DECRBY (core.py: return
# self.incrby(name, amount)): no method sends INCR or DECR.
NOT_TYPED = {"INCR", "DECR", "BITFIELD", "BITFIELD_RO", "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "PUBSUB", "MONITOR", "SUBSCRIBE", "PSUBSCRIBE",
             "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "HELLO", "CLIENT", "SELECT", "QUIT", "RESET"}


def typed_call(client, args):
    """(wrapper, call, respelled) for args through redis-py's typed method
    (respelled: how it reorders them, or None), a Limit when the method
    cannot express them, or None when it has none, or when the method
    would send another command than args (dry_run): a wrapper that adds
    its own FIELDS n or reads "0" as true is no way to send the step; one
    that only puts the arguments in its own order is sent (the proxy then
    checks that nothing else changed)."""
    t = typed_method(client, args)
    if t is None or isinstance(t, Limit):
        return t
    sent, want = dry_run(client, t[1]), [wire(a) for a in args]
    if sent == want:
        return t[0], t[1], None
    if sent is not None and set_options(sent) is not None and set_options(sent) == set_options(want) and sent[1:3] == want[1:3]:
        # The same SET with its options in set()'s own order: sent, and
        # the proxy checks again that nothing else changed.
        return t[0], t[1], "%s sends SET's options in its own order (%s)" % (t[0], cite(client.set))
    return None


SET_VALUED = {b"EX", b"PX", b"EXAT", b"PXAT", b"IFEQ", b"IFNE", b"IFDEQ", b"IFDNE"}


def set_options(cmd):
    """The options of a SET command (bytes arguments), each with its value,
    sorted; None for another command or an option without its value."""
    if len(cmd) < 3 or cmd[0].upper() != b"SET":
        return None
    opts, i = [], 3
    while i < len(cmd):
        name = cmd[i].upper()
        if name not in SET_VALUED:
            opts.append(name)
            i += 1
            continue
        if i + 1 >= len(cmd):
            return None
        val = cmd[i + 1].lower() if name in (b"IFDEQ", b"IFDNE") else cmd[i + 1]
        opts.append(name + b" " + val)
        i += 2
    return sorted(opts)


def wire(a):
    """An argument as redis-py's Encoder puts it on the wire."""
    if isinstance(a, bytes):
        return a
    if isinstance(a, str):
        return a.encode("utf-8")
    return repr(a).encode() if isinstance(a, float) else str(a).encode()


def dry_run(client, call):
    """The arguments call would send, found by running it with the
    client's execute_command replaced (an instance attribute shadows the
    method); None when it raises or sends no single command."""
    sent = []
    client.execute_command = lambda *a, **kw: sent.append([wire(x) for x in a])
    try:
        call()
    except Exception:
        return None
    finally:
        del client.execute_command
    return sent[0] if len(sent) == 1 else None


def typed_method(client, args):
    """(wrapper, call) for args through redis-py's typed method, or None."""
    if not args or not isinstance(args[0], str):
        return None
    cmd = args[0].upper()
    rest = list(args[1:])
    if cmd in TYPED:
        return TYPED[cmd](client, rest)
    if cmd in NOT_TYPED:
        return None
    name = TYPED_NAMES.get(cmd, cmd.lower())
    meth = getattr(client, name, None)
    if meth is None or not getattr(meth, "__module__", "").startswith("redis.commands"):
        return None
    try:
        params = list(inspect.signature(meth).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    # One to one: every argument a required parameter, in order, the
    # optional ones left at their defaults; or, for a method whose
    # parameters before *args are all required, the rest to *args.
    star = [p.name for p in params if p.kind == p.VAR_POSITIONAL]
    if len(rest) == len(required) and required == positional[:len(required)]:
        shown = "%s(%s)" % (name, ", ".join(p.name for p in required))
    elif varargs and len(required) == len(positional) and len(rest) > len(required):
        shown = "%s(%s)" % (name, ", ".join([p.name for p in required] + ["*" + star[0]]))
    else:
        return None
    return shown, lambda: meth(*rest)


PARSERS = {}


def main():
    PARSERS.update(parsers())
    configs = {c.name: c for c in CONFIGS}
    sessions = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        rid, op = req.get("id"), req.get("op")
        try:
            if op == "hello":
                send({"id": rid, "libraries": [c.hello(PARSERS) for c in CONFIGS]})
            elif op == "open":
                cfg = configs.get(req["lib"])
                if cfg is None or isinstance(PARSERS[cfg.parser], str):
                    send({"id": rid, "error": "unknown library " + req["lib"]})
                    continue
                sessions[req["session"]] = Session(cfg, req["addr"], req["proto"])
                send({"id": rid, "ok": True})
            elif op == "do":
                c = sessions[req["session"]].conn(req["conn"])
                c.q.put((rid, c.do, [arg(base64.b64decode(a)) for a in req["args"]]))
            elif op == "typed":
                s = sessions[req["session"]]
                if not s.cfg.typed:
                    send({"id": rid, "error": s.cfg.name + " has no typed op"})
                    continue
                c = s.conn(req["conn"])
                c.q.put((rid, c.typed, [arg(base64.b64decode(a)) for a in req["args"]]))
            elif op == "batch":
                s = sessions[req["session"]]
                if not s.cfg.batch and not (s.cfg.cluster and req["mode"] == "multi"):
                    send({"id": rid, "error": s.cfg.name + " has no batch op"})
                    continue
                if req["mode"] not in ("pipeline", "multi"):
                    send({"id": rid, "error": "unknown batch mode " + str(req["mode"])})
                    continue
                c = s.conn(req["conn"])
                cmds = [[arg(base64.b64decode(a)) for a in cmd] for cmd in req["cmds"]]
                c.q.put((rid, c.batch, req["mode"], cmds))
            elif op in ("subscribe", "next"):
                s = sessions[req["session"]]
                if not s.cfg.pubsub:
                    send({"id": rid, "error": s.cfg.name + " has no subscribe API"})
                    continue
                c = s.conn(req["conn"])
                if op == "next":
                    c.q.put((rid, c.next, req["kind"], req["wait_ms"]))
                else:
                    c.q.put((rid, c.subscribe, [arg(base64.b64decode(a)) for a in req["args"]]))
            elif op == "close":
                s = sessions.pop(req["session"], None)
                if s:
                    s.close()
                send({"id": rid, "ok": True})
            else:
                send({"id": rid, "error": "unknown op " + str(op)})
        except Exception as e:
            log(traceback.format_exc())
            send({"id": rid, "error": "%s: %s" % (type(e).__name__, e)})


if __name__ == "__main__":
    main()
