# repro: redis-py's PubSub given an UNSUBSCRIBE of two channels before any subscription sends it, but get_message returns None while nothing is subscribed (PubSub.subscribed is False), so the server's two confirmations (count 0) are left unread; after the next subscribe they are delivered first, as if they answered it, in RESP2 and RESP3.
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-4.3.4/pubsub/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-6.4.0/pubsub/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-6.4.0/pubsub/resp3]
# run: python-4.3.4
# run: python-6.4.0
# expect: (?s)RESP2 after unsubscribe c1 c2: get_message -> None\nRESP2 after subscribe c3: get_message -> \{'type': 'unsubscribe', 'pattern': None, 'channel': b'c1', 'data': 0\}
import lib

for proto in lib.PROTOS:
    p = lib.client(proto).pubsub()
    print(r'wire: *3\r\n$11\r\nunsubscribe\r\n$2\r\nc1\r\n:0\r\n and the same for c2', flush=True)
    p.unsubscribe('c1', 'c2')
    print('RESP%d after unsubscribe c1 c2: get_message ->' % proto, p.get_message(timeout=1), flush=True)
    p.subscribe('c3')
    for _ in range(3):
        print('RESP%d after subscribe c3: get_message ->' % proto, p.get_message(timeout=1), flush=True)
    p.close()
