# repro: redis-py 6.4.0 on RESP3 reshapes XREAD's map of stream name to entries ("%1\r\n$7\r\nrepro:s\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n") by its XREAD callback: the entries are wrapped in one more list and each entry becomes an (id, dict) tuple.
# finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [redis-py-6.4.0/resp3]
# run: python-6.4.0
# expect: RESP3 XREAD DECODED: \{b'repro:s': \[\[\(b'1-1', \{b'f': b'v'\}\)\]\]\}
import os, sys, threading
import redis

HOST, PORT = sys.argv[1].split(':')


def client(proto):
    kw = dict(host=HOST, port=int(PORT), single_connection_client=True)
    if int(redis.__version__.split('.')[0]) >= 5:
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


PROTOS = [3]

r = client(3)
r.execute_command('DEL', 'repro:s')
r.execute_command('XADD', 'repro:s', '1-1', 'f', 'v')
step('RESP3 XREAD', r, 'XREAD', 'STREAMS', 'repro:s', '0')
