# repro: redis-py execute_command("PING") returns True for the simple string "+PONG\r\n" (its PING response callback), not the text.
# finds: errors/simple error for a wrong number of arguments [redis-py-4.3.4/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-4.3.4/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0/resp3]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0/resp3]
# finds: tracking/invalidate push from another connection's SET, read before a simple string reply [redis-py-6.4.0/resp3]
# finds: errors/simple error for a wrong number of arguments [redis-py-4.3.4+hiredis/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-4.3.4+hiredis/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: tracking/invalidate push from another connection's SET, read before a simple string reply [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: errors/simple error for a wrong number of arguments [redis-py-4.3.4/cluster/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-4.3.4/cluster/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0/cluster/resp2]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0/cluster/resp2]
# finds: errors/simple error for a wrong number of arguments [redis-py-6.4.0/cluster/resp3]
# finds: resp3-types/simple strings +OK and +PONG [redis-py-6.4.0/cluster/resp3]
# finds: tracking/invalidate push from another connection's SET, read before a simple string reply [redis-py-6.4.0/cluster/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-4.3.4/pubsub/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0/pubsub/resp2]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-py-6.4.0/pubsub/resp3]
# finds: tracking/invalidate push from another connection's SET, read before a simple string reply [redis-py-6.4.0/pubsub/resp3]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: RESP2 PING DECODED: True\n
from lib import PROTOS, client, step


for p in PROTOS:
    r = client(p)
    print('wire: +PONG\\r\\n')
    step('RESP%d PING' % p, r, 'PING')
