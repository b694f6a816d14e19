# repro: redis-py turns the RESP2 array of SMEMBERS ("*0\r\n" for a missing key) into a Python set by its response callback.
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-6.4.0/resp2]
# run: python-6.4.0
# expect: RESP2 SMEMBERS DECODED: set\(\)\n
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


PROTOS = [2]

r = client(2)
print('wire: *0\\r\\n')
step('RESP2 SMEMBERS', r, 'SMEMBERS', 'repro:missing')
