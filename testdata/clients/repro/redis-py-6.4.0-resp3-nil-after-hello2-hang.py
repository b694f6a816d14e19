# repro: redis-py 6.4.0 on a RESP3 connection switched by HELLO 2 never returns from GET of a missing key, whose reply is now the RESP2 nil "$-1\r\n".
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0/resp3]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0/resp3]
# run: python-6.4.0
# expect: (?s)RESP3 GET before DECODED: None\n.*RESP3 GET after HELLO 2 HANG: no result after 2s
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
print('wire: _\\r\\n')
step('RESP3 GET before', r, 'GET', 'repro:missing')
step('RESP3 HELLO 2', r, 'HELLO', '2')
print('wire: $-1\\r\\n')
step('RESP3 GET after HELLO 2', r, 'GET', 'repro:missing')
