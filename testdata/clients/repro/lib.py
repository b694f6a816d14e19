"""Shared by the redis-py repros: python3 FILE.py HOST:PORT (see README.md)."""
import os, sys, threading
import redis

HOST, PORT = sys.argv[1].split(':')

# redis-py before 5 speaks RESP2 only (no protocol= argument).
RESP3 = int(redis.__version__.split('.')[0]) >= 5
PROTOS = [2, 3] if RESP3 else [2]


# The configuration, as respcheck's adapter has it (RESPCHECK_REPRO_CONFIG,
# set by the run: line): "" (the pure-Python parser: with python3-hiredis
# installed redis-py 4.3.4 would pick hiredis), "+hiredis",
# "[callbacks=none]" or "[decode_responses=True]".
CONFIG = os.environ.get('RESPCHECK_REPRO_CONFIG', '')


def parser():
    """The parser class the configuration reads with."""
    if RESP3:
        from redis._parsers import _HiredisParser, _RESP2Parser
        return _HiredisParser if CONFIG == '+hiredis' else _RESP2Parser
    from redis.connection import HiredisParser, PythonParser
    return HiredisParser if CONFIG == '+hiredis' else PythonParser


def client(proto):
    kw = dict(host=HOST, port=int(PORT), parser_class=parser())
    if RESP3:
        kw['protocol'] = proto
    if CONFIG == '[decode_responses=True]':
        kw['decode_responses'] = True
    r = redis.Redis(connection_pool=redis.ConnectionPool(**kw), single_connection_client=True)
    if CONFIG == '[callbacks=none]':
        r.response_callbacks.clear()
    print('config %r: %s' % (CONFIG, type(r.connection._parser).__name__), flush=True)
    return r


def step(label, r, *args):
    """One execute_command with a 2 s timer; prints DECODED, THROWN or HANG."""
    return timed(label, lambda: r.execute_command(*args))


def batch(label, r, transaction, *cmds):
    """One Pipeline.execute(raise_on_error=False) of cmds, as respcheck's
    /pipeline configuration runs it: on r's own connection."""
    def run():
        p = r.pipeline(transaction=transaction)
        p.connection = r.connection
        for c in cmds:
            p.execute_command(*c)
        return p.execute(raise_on_error=False)
    return timed(label, run)


def timed(label, fn):
    """fn() with a 2 s timer; prints DECODED, THROWN or HANG."""
    out = {}

    def run():
        try:
            out['v'] = fn()
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
