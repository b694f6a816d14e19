# repro: redis-py execute_command("PING") returns True for the simple string "+PONG\r\n" (its PING response callback), not the text.
# finds: errors/simple error for a wrong number of arguments [redis-py-4.3.4/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-4.3.4/resp2]
# run: python-4.3.4
# expect: RESP2 PING DECODED: True\n
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

for p in PROTOS:
    r = client(p)
    print('wire: +PONG\\r\\n')
    step('RESP%d PING' % p, r, 'PING')
