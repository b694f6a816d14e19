#!/usr/bin/python3.11
"""respcheck client-view adapter for redis-py.

Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
stdin/stdout; logs go to stderr. Each named case connection is its own
redis.Redis(single_connection_client=True), so execute_command runs on a
pinned connection with redis-py's response callbacks, exactly as an
application calling r.execute_command('SET', ...) would. Values are reported
as redis-py returns them (bytes stay bytes, bools stay bools); nothing is
normalised. Run one process per redis-py version (PYTHONPATH selects it).
"""
import base64
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
    if isinstance(v, redis.exceptions.ResponseError):
        return {"kind": "error", "type": t, "error": {"class": t, "message": str(v)}}
    if isinstance(v, BaseException):
        return {"kind": "exception", "type": t, "error": {"class": t, "message": str(v)}}
    return text("other", t, repr(v))


def arg(b):
    # Applications pass str; redis-py picks response callbacks by the str
    # command name. Bytes that are not UTF-8 stay bytes.
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


class Conn:
    def __init__(self, session, name):
        self.session = session
        self.client = None
        self.q = queue.Queue()
        threading.Thread(target=self.loop, daemon=True, name=name).start()

    def loop(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            rid, args = item
            try:
                if self.client is None:
                    self.client = self.session.new_client()
                v = self.client.execute_command(*args)
                send({"id": rid, "value": native(v)})
            except redis.exceptions.ResponseError as e:
                send({"id": rid, "value": native(e)})
            except Exception as e:  # a crash, reported as such
                log(traceback.format_exc())
                send({"id": rid, "value": native(e)})

    def close(self):
        self.q.put(None)
        try:
            if self.client is not None:
                self.client.close()
        except Exception:
            pass


class Session:
    def __init__(self, addr, proto):
        host, port = addr.rsplit(":", 1)
        self.host, self.port, self.proto = host, int(port), proto
        self.conns = {}

    def new_client(self):
        kw = dict(host=self.host, port=self.port, single_connection_client=True,
                  socket_timeout=None, socket_connect_timeout=5)
        try:
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            kw["retry"] = Retry(NoBackoff(), 0)
        except ImportError:
            pass
        if MAJOR >= 5:
            kw["protocol"] = self.proto
        return redis.Redis(**kw)

    def conn(self, name):
        c = self.conns.get(name)
        if c is None:
            c = self.conns[name] = Conn(self, name)
        return c

    def close(self):
        for c in self.conns.values():
            c.close()


def main():
    sessions = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        rid, op = req.get("id"), req.get("op")
        try:
            if op == "hello":
                protos = [2, 3] if MAJOR >= 5 else [2]
                send({"id": rid, "libraries": [{"name": NAME, "version": redis.__version__, "protos": protos,
                                                   "api": "Redis.execute_command(*args)", "source": source()}]})
            elif op == "open":
                if req["lib"] != NAME:
                    send({"id": rid, "error": "unknown library " + req["lib"]})
                    continue
                sessions[req["session"]] = Session(req["addr"], req["proto"])
                send({"id": rid, "ok": True})
            elif op == "do":
                s = sessions[req["session"]]
                args = [arg(base64.b64decode(a)) for a in req["args"]]
                s.conn(req["conn"]).q.put((rid, args))
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
