# repro: redis-py execute_command("SET", k, v, "GET") returns False for the old value's blob string ("$3\r\nold\r\n"), because its SET callback only checks for OK.
# finds: seed000/SET GET over an existing value [redis-py-4.3.4/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-4.3.4/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-4.3.4/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-4.3.4/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/resp3]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/resp3]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/resp3]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/resp3]
# finds: seed000/SET GET over an existing value [redis-py-4.3.4+hiredis/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-4.3.4+hiredis/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-4.3.4+hiredis/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-4.3.4+hiredis/resp2]
# finds: seed000/SET GET over an existing value [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: seed000/SET GET over an existing value [redis-py-4.3.4/cluster/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-4.3.4/cluster/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-4.3.4/cluster/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-4.3.4/cluster/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/cluster/resp2]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/cluster/resp2]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/cluster/resp2]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/cluster/resp2]
# finds: seed000/SET GET over an existing value [redis-py-6.4.0/cluster/resp3]
# finds: seed000/SET IFEQ GET with a failed condition [redis-py-6.4.0/cluster/resp3]
# finds: seed000/SET IFEQ GET with a matching condition [redis-py-6.4.0/cluster/resp3]
# finds: typed/SET IF conditions and DIGEST [redis-py-6.4.0/cluster/resp3]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-4.3.4/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-4.3.4+hiredis/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0/resp3]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-4.3.4/cluster/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0/cluster/resp2]
# finds: typed-limits/a zero digest, two conditions, options out of a wrapper's order [redis-py-6.4.0/cluster/resp3]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP2 SET GET DECODED: False\n.*RESP2 SET IFEQ GET DECODED: False\n
from lib import PROTOS, client, step


for p in PROTOS:
    r = client(p)
    r.execute_command('SET', 'repro:key', 'old')
    print('wire: $3\\r\\nold\\r\\n')
    step('RESP%d SET GET' % p, r, 'SET', 'repro:key', 'new', 'GET')
    print('wire: $3\\r\\nnew\\r\\n')
    step('RESP%d SET IFEQ GET' % p, r, 'SET', 'repro:key', 'attempted', 'IFEQ', 'wrong-guess', 'GET')
