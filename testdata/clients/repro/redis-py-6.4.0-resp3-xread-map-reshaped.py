# repro: redis-py 6.4.0 on RESP3 reshapes XREAD's map of stream name to entries ("%1\r\n$7\r\nrepro:s\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n") by its XREAD callback: the entries are wrapped in one more list and each entry becomes an (id, dict) tuple.
# finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [redis-py-6.4.0/resp3]
# finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: aggregates/map of stream names to arrays from XREAD in RESP3, nested arrays in RESP2 [redis-py-6.4.0/cluster/resp3]
# run: python-6.4.0
# run: python-6.4.0[decode_responses=True]
# expect: RESP3 XREAD DECODED: \{b?'repro:s': \[\[\(b?'1-1', \{b?'f': b?'v'\}\)\]\]\}
from lib import client, step

PROTOS = [3]

r = client(3)
r.execute_command('DEL', 'repro:s')
r.execute_command('XADD', 'repro:s', '1-1', 'f', 'v')
step('RESP3 XREAD', r, 'XREAD', 'STREAMS', 'repro:s', '0')
