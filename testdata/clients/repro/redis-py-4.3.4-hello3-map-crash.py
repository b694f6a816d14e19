# repro: redis-py on a RESP2 connection cannot parse the RESP3 map HELLO 3 answers ("%7\r\n..."): InvalidResponse "Protocol Error: b'%7'".
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-4.3.4/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-4.3.4/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-4.3.4/resp2]
# run: python-4.3.4
# expect: HELLO 3 THROWN: InvalidResponse: Protocol Error: b'%7'
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
print('wire: %7\\r\\n$6\\r\\nserver\\r\\n...')
step('RESP2 HELLO 3', r, 'HELLO', '3')
