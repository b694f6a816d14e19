# repro: redis-py turns the RESP2 array of SMEMBERS ("*0\r\n" for a missing key) into a Python set by its response callback.
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-4.3.4/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-6.4.0/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-4.3.4+hiredis/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-4.3.4/cluster/resp2]
# finds: nil-kinds/empty set from SMEMBERS of a missing key, an empty array in RESP2 [redis-py-6.4.0/cluster/resp2]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: RESP2 SMEMBERS DECODED: set\(\)\n
from lib import client, step

PROTOS = [2]

r = client(2)
print('wire: *0\\r\\n')
step('RESP2 SMEMBERS', r, 'SMEMBERS', 'repro:missing')
