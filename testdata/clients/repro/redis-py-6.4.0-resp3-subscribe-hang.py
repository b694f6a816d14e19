# repro: redis-py 6.4.0 on RESP3: execute_command("SUBSCRIBE"/"PSUBSCRIBE"/"SSUBSCRIBE") never returns, since the confirmation arrives as a push (">3\r\n$9\r\nsubscribe\r\n...") that the connection passes to its push handler while it waits for a reply.
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0/resp3]
# finds: pubsub/PSUBSCRIBE confirmation [redis-py-6.4.0/resp3]
# finds: pubsub/SSUBSCRIBE confirmation [redis-py-6.4.0/resp3]
# finds: pubsub/a transaction on one connection while another is subscribed [redis-py-6.4.0/resp3]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0/resp3]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0/resp3]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0/resp3]
# finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [redis-py-6.4.0/resp3]
# finds: pushes/message push between two replies on a subscribed connection [redis-py-6.4.0/resp3]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0/resp3]
# finds: pubsub/a transaction on one connection while another is subscribed [redis-py-6.4.0/pipeline/resp3]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/SSUBSCRIBE confirmation [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/a transaction on one connection while another is subscribed [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pushes/message push between two replies on a subscribed connection [redis-py-6.4.0[callbacks=none]/resp3]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0[callbacks=none]/resp3]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/SSUBSCRIBE confirmation [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/a transaction on one connection while another is subscribed [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: pushes/message push between two replies on a subscribed connection [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-py-6.4.0[decode_responses=True]/resp3]
# run: python-6.4.0
# run: python-6.4.0[callbacks=none]
# run: python-6.4.0[decode_responses=True]
# expect: RESP3 SUBSCRIBE HANG: no result after 2s
from lib import client, step

PROTOS = [3]

r = client(3)
print('wire: >3\\r\\n$9\\r\\nsubscribe\\r\\n$8\\r\\nrepro:ch\\r\\n:1\\r\\n')
step('RESP3 SUBSCRIBE', r, 'SUBSCRIBE', 'repro:ch')
