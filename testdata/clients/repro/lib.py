"""Shared by the redis-py repros: python3 FILE.py HOST:PORT (see README.md)."""
import os, sys, threading
import redis

HOST, PORT = sys.argv[1].split(':')

# redis-py before 5 speaks RESP2 only (no protocol= argument).
RESP3 = int(redis.__version__.split('.')[0]) >= 5
PROTOS = [2, 3] if RESP3 else [2]


def client(proto):
    kw = dict(host=HOST, port=int(PORT), single_connection_client=True)
    if RESP3:
        kw['protocol'] = proto
    return redis.Redis(**kw)


def step(label, r, *args):
    """One execute_command with a 2 s timer; prints DECODED, THROWN or HANG."""
    out = {}

    def run():
        try:
            out['v'] = r.execute_command(*args)
        except Exception as e:  # the library's exception is the result
            out['e'] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(2)
    if t.is_alive():
        print(label, 'HANG: no result after 2s', flush=True)
        os._exit(0)
    if 'e' in out:
        print(label, 'THROWN: %s: %s' % (type(out['e']).__name__, out['e']), flush=True)
        return None
    print(label, 'DECODED:', repr(out['v']), flush=True)
    return out['v']
