# repro: redis-py 6.4.0 on a RESP3 connection switched by HELLO 2 never returns from GET of a missing key, whose reply is now the RESP2 nil "$-1\r\n".
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0/resp3]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0/resp3]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0[callbacks=none]/resp3]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0[callbacks=none]/resp3]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-py-6.4.0[decode_responses=True]/resp3]
# run: python-6.4.0
# run: python-6.4.0[callbacks=none]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP3 GET before DECODED: None\n.*RESP3 GET after HELLO 2 HANG: no result after 2s
from lib import client, step

PROTOS = [3]

r = client(3)
print('wire: _\\r\\n')
step('RESP3 GET before', r, 'GET', 'repro:missing')
step('RESP3 HELLO 2', r, 'HELLO', '2')
print('wire: $-1\\r\\n')
step('RESP3 GET after HELLO 2', r, 'GET', 'repro:missing')
