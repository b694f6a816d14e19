# repro: redis-py execute_command("SUBSCRIBE") on RESP2 returns the confirmation, then hands the next frame on the subscribed connection (a published message, a second confirmation) to the next call, and PING's pong array ["pong", ""] comes back False from the PING callback.
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-4.3.4/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-4.3.4/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-4.3.4/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-4.3.4/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-4.3.4/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-4.3.4/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-4.3.4+hiredis/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-4.3.4[callbacks=none]/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-4.3.4[callbacks=none]/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-4.3.4[callbacks=none]/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-4.3.4[callbacks=none]/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-4.3.4[callbacks=none]/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0[callbacks=none]/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0[callbacks=none]/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0[callbacks=none]/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0[callbacks=none]/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0[callbacks=none]/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-4.3.4/cluster/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-4.3.4/cluster/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0/cluster/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0/cluster/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-4.3.4/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-4.3.4+hiredis/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-4.3.4[callbacks=none]/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-6.4.0/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-6.4.0[callbacks=none]/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-4.3.4/cluster/resp2]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[callbacks=none]
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[callbacks=none]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[b'message', b'repro:ch', b'hello'\]\nRESP2 ECHO next DECODED: \[b'unsubscribe', b'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \[b'subscribe', b'repro:c2', 2\]\n.*RESP2 PING subscribed DECODED: False\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[b'message', b'repro:ch', b'hello'\]\nRESP2 ECHO next DECODED: \[b'unsubscribe', b'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \[b'subscribe', b'repro:c2', 2\]\n.*RESP2 PING subscribed DECODED: False\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[b'message', b'repro:ch', b'hello'\]\nRESP2 ECHO next DECODED: \[b'unsubscribe', b'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \[b'subscribe', b'repro:c2', 2\]\n.*RESP2 PING subscribed DECODED: False\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[b'message', b'repro:ch', b'hello'\]\nRESP2 ECHO next DECODED: \[b'unsubscribe', b'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \[b'subscribe', b'repro:c2', 2\]\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \['message', 'repro:ch', 'hello'\]\nRESP2 ECHO next DECODED: \['unsubscribe', 'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \['subscribe', 'repro:c2', 2\]\n.*RESP2 PING subscribed DECODED: False\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \[b'message', b'repro:ch', b'hello'\]\nRESP2 ECHO next DECODED: \[b'unsubscribe', b'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \[b'subscribe', b'repro:c2', 2\]\n
# expect: (?s)RESP2 UNSUBSCRIBE DECODED: \['message', 'repro:ch', 'hello'\]\nRESP2 ECHO next DECODED: \['unsubscribe', 'repro:ch', 0\]\n.*RESP2 UNSUBSCRIBE all DECODED: \['subscribe', 'repro:c2', 2\]\n.*RESP2 PING subscribed DECODED: False\n
from lib import client, step

PROTOS = [2]

r, pub = client(2), client(2)
step('RESP2 SUBSCRIBE', r, 'SUBSCRIBE', 'repro:ch')
step('RESP2 PUBLISH', pub, 'PUBLISH', 'repro:ch', 'hello')
print('wire: *3\\r\\n$7\\r\\nmessage\\r\\n$8\\r\\nrepro:ch\\r\\n$5\\r\\nhello\\r\\n then *3\\r\\n$11\\r\\nunsubscribe\\r\\n...')
step('RESP2 UNSUBSCRIBE', r, 'UNSUBSCRIBE', 'repro:ch')
step('RESP2 ECHO next', r, 'ECHO', 'next')
r = client(2)
step('RESP2 SUBSCRIBE two', r, 'SUBSCRIBE', 'repro:c1', 'repro:c2')
step('RESP2 UNSUBSCRIBE all', r, 'UNSUBSCRIBE')
r = client(2)
step('RESP2 SUBSCRIBE', r, 'SUBSCRIBE', 'repro:ch')
print('wire: *2\\r\\n$4\\r\\npong\\r\\n$0\\r\\n\\r\\n')
step('RESP2 PING subscribed', r, 'PING')
