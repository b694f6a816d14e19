# repro: redis-py 6.4.0 on RESP3 cannot parse the attribute type ("|1\r\n$14\r\nkey-popularity\r\n...") of DEBUG PROTOCOL attrib, alone or inside EXEC: InvalidResponse "Protocol Error: b'|1'".
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-py-6.4.0/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-py-6.4.0/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-py-6.4.0/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-py-6.4.0/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-py-6.4.0/resp3]
# finds: faults/attribute before a reply [redis-py-6.4.0/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-py-6.4.0/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-py-6.4.0[callbacks=none]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-py-6.4.0[callbacks=none]/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-py-6.4.0[callbacks=none]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-py-6.4.0[callbacks=none]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-py-6.4.0[callbacks=none]/resp3]
# finds: faults/attribute before a reply [redis-py-6.4.0[callbacks=none]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-py-6.4.0[callbacks=none]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: faults/attribute before a reply [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-py-6.4.0/cluster/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-py-6.4.0/cluster/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-py-6.4.0/cluster/resp3]
# finds: faults/attribute before a reply [redis-py-6.4.0/cluster/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-py-6.4.0/cluster/resp3]
# run: python-6.4.0
# run: python-6.4.0[callbacks=none]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP3 DEBUG PROTOCOL attrib THROWN: InvalidResponse: Protocol Error: b'\|1'\n.*RESP3 EXEC THROWN: InvalidResponse: Protocol Error: b'\|1'\n
from lib import client, step

PROTOS = [3]

r = client(3)
print('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...')
step('RESP3 DEBUG PROTOCOL attrib', r, 'DEBUG', 'PROTOCOL', 'attrib')
r = client(3)
step('RESP3 MULTI', r, 'MULTI')
step('RESP3 DEBUG PROTOCOL attrib queued', r, 'DEBUG', 'PROTOCOL', 'attrib')
step('RESP3 EXEC', r, 'EXEC')
