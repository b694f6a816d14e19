# repro: redis-py execute_command("SET", k, v, "GET") returns False for the old value's blob string ("$3\r\nold\r\n"), because its SET callback only checks for OK.
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/resp3]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/resp3]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/resp3]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/resp3]
# run: python-6.4.0
# expect: (?s)RESP2 SET GET DECODED: False\n.*RESP2 SET IFEQ GET DECODED: False\n
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


PROTOS = [2, 3]

for p in PROTOS:
    r = client(p)
    r.execute_command('SET', 'repro:key', 'old')
    print('wire: $3\\r\\nold\\r\\n')
    step('RESP%d SET GET' % p, r, 'SET', 'repro:key', 'new', 'GET')
    print('wire: $3\\r\\nnew\\r\\n')
    step('RESP%d SET IFEQ GET' % p, r, 'SET', 'repro:key', 'attempted', 'IFEQ', 'wrong-guess', 'GET')
