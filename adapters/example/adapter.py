#!/usr/bin/env python3
"""A minimal respcheck adapter: a reference to start yours from.

It drives one "library", raw-resp, that is no library at all: a socket and
a small RESP2/RESP3 parser that reports every reply exactly as the wire says
it (a blob string as bytes, a map as a map, an error as an error), so its
verdicts are the judge's baseline. Run it with

    respcheck clients --adapter "python3 adapters/example/adapter.py" --clients raw-resp CASES...

The protocol (docs/adapters.md): one JSON request per line on stdin, one
JSON response per line on stdout with the request's "id"; logs go to stderr.
This adapter answers hello, open, do and close; respcheck sends no other op
to a library whose hello entry does not ask for it (typed, batch, pubsub).
"""
import base64
import json
import socket
import sys

LIBRARY = {"name": "raw-resp", "version": "1.0.0", "protos": [2, 3], "api": "a raw socket",
           "source": "adapters/example/adapter.py (a socket and a RESP parser: the wire as is)"}


def text(s, kind, typ):
    return {"kind": kind, "type": typ, "text": s}


class Conn:
    """One connection of a session: a socket, its unread bytes."""

    def __init__(self, addr, proto):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.buf = b""
        if proto == 3:
            self.do([b"HELLO", b"3"])

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed by the server")
            self.buf += chunk
        out, self.buf = self.buf.split(b"\r\n", 1)
        return out

    def exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed by the server")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n + 2:]
        return out

    def frame(self):
        """Reads one frame and returns it as a Native (docs/adapters.md)."""
        head = self.line()
        t, rest = head[:1], head[1:].decode("utf-8", "replace")
        if t == b"+":
            return text(rest, "string", "simple string")
        if t == b"-":
            return {"kind": "error", "type": "simple error", "error": {"class": rest.split(" ")[0], "message": rest}}
        if t == b":":
            return text(rest, "int", "integer")
        if t == b",":
            return text(rest, "float", "double")
        if t == b"(":
            return text(rest, "bigint", "big number")
        if t == b"#":
            return text("true" if rest == "t" else "false", "bool", "boolean")
        if t == b"_":
            return {"kind": "nil", "type": "null"}
        if t in (b"$", b"!", b"="):
            n = int(rest)
            if n < 0:
                return {"kind": "nil", "type": "nil blob string"}
            data = self.exact(n)
            if t == b"!":
                msg = data.decode("utf-8", "replace")
                return {"kind": "error", "type": "blob error", "error": {"class": msg.split(" ")[0], "message": msg}}
            if t == b"=":
                data = data[4:]  # the format ("txt:") is not the payload
            return {"kind": "bytes", "type": "blob string" if t == b"$" else "verbatim string",
                    "b64": base64.b64encode(data).decode()}
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return {"kind": "nil", "type": "nil array"}
            return {"kind": "set" if t == b"~" else "list", "type": {b"*": "array", b"~": "set", b">": "push"}[t],
                    "elems": [self.frame() for _ in range(n)]}
        if t in (b"%", b"|"):
            pairs = [[self.frame(), self.frame()] for _ in range(int(rest))]
            if t == b"|":  # an attribute: the value follows, and carries it
                value = self.frame()
                value["attr"] = {"kind": "map", "type": "attribute", "pairs": pairs}
                return value
            return {"kind": "map", "type": "map", "pairs": pairs}
        raise ValueError("not RESP: %r" % head[:40])

    def do(self, args):
        cmd = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
        self.sock.sendall(cmd)
        while True:
            v = self.frame()
            if v.get("type") != "push":  # out-of-band: not this command's reply
                return v

    def close(self):
        self.sock.close()


def main():
    sessions = {}  # session id -> (addr, proto, {conn name: Conn})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid, op = req.get("id"), req.get("op")
        try:
            if op == "hello":
                resp = {"libraries": [LIBRARY]}
            elif op == "open":
                sessions[req["session"]] = (req["addr"], req["proto"], {})
                resp = {"ok": True}
            elif op == "do":
                addr, proto, conns = sessions[req["session"]]
                name = req["conn"]
                if name not in conns:
                    conns[name] = Conn(addr, proto)
                try:
                    resp = {"value": conns[name].do([base64.b64decode(a) for a in req["args"]])}
                except (OSError, ValueError) as e:  # the library's own failure: an exception value
                    resp = {"value": {"kind": "exception", "type": type(e).__name__,
                                      "error": {"class": type(e).__name__, "message": str(e)}}}
            elif op == "close":
                for c in sessions.pop(req["session"], (None, None, {}))[2].values():
                    c.close()
                resp = {"ok": True}
            else:
                resp = {"error": "unknown op " + str(op)}
        except Exception as e:  # a bug of the adapter, not a verdict on the library
            print("adapter: %s: %s" % (type(e).__name__, e), file=sys.stderr, flush=True)
            resp = {"error": "%s: %s" % (type(e).__name__, e)}
        resp["id"] = rid
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
