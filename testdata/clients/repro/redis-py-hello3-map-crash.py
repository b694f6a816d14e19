# repro: redis-py on a RESP2 connection cannot parse the RESP3 map HELLO 3 answers ("%7\r\n..."): InvalidResponse "Protocol Error: b'%7'".
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-4.3.4/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-4.3.4/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-4.3.4/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-6.4.0/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-6.4.0/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-6.4.0/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-4.3.4+hiredis/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-4.3.4+hiredis/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4+hiredis/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4+hiredis/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-4.3.4+hiredis/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-4.3.4[callbacks=none]/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-4.3.4[callbacks=none]/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4[callbacks=none]/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4[callbacks=none]/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-4.3.4[callbacks=none]/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-6.4.0[callbacks=none]/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0[callbacks=none]/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-6.4.0[callbacks=none]/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0[callbacks=none]/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-6.4.0[callbacks=none]/resp2]
# finds: faults/HELLO 3 through a RESP2 connection [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-4.3.4/cluster/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-4.3.4/cluster/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-py-6.4.0/cluster/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0/cluster/resp2]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[callbacks=none]
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[callbacks=none]
# run: python-6.4.0[decode_responses=True]
# expect: HELLO 3 THROWN: InvalidResponse: Protocol (Error: b'%7'|error, got "%" as reply type byte)
from lib import client, step

PROTOS = [2]

r = client(2)
print('wire: %7\\r\\n$6\\r\\nserver\\r\\n...')
step('RESP2 HELLO 3', r, 'HELLO', '3')
