# repro: redis-py applies its response callbacks to the "+QUEUED\r\n" a command gets inside MULTI: SET gives False, ZADD (and STRLEN in 4.3.4) raise ValueError int(b'QUEUED'), HGETALL gives {81: 85, 69: 68}.
# finds: errors/EXECABORT error after an error at queue time [redis-py-4.3.4/resp2]
# finds: faults/error inside an EXEC array [redis-py-4.3.4/resp2]
# finds: faults/EXEC nil after WATCH [redis-py-4.3.4/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-4.3.4/resp2]
# finds: transactions/EXEC array holding a map of fields and a nested array [redis-py-4.3.4/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-4.3.4/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-4.3.4/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-4.3.4/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0/resp3]
# finds: faults/error inside an EXEC array [redis-py-6.4.0/resp2]
# finds: faults/error inside an EXEC array [redis-py-6.4.0/resp3]
# finds: faults/EXEC nil after WATCH [redis-py-6.4.0/resp2]
# finds: faults/EXEC nil after WATCH [redis-py-6.4.0/resp3]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-6.4.0/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-6.4.0/resp3]
# finds: transactions/EXEC array holding a map of fields and a nested array [redis-py-6.4.0/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-6.4.0/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-6.4.0/resp3]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0/resp3]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-6.4.0/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-6.4.0/resp3]
# finds: errors/EXECABORT error after an error at queue time [redis-py-4.3.4+hiredis/resp2]
# finds: faults/error inside an EXEC array [redis-py-4.3.4+hiredis/resp2]
# finds: faults/EXEC nil after WATCH [redis-py-4.3.4+hiredis/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-4.3.4+hiredis/resp2]
# finds: transactions/EXEC array holding a map of fields and a nested array [redis-py-4.3.4+hiredis/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-4.3.4+hiredis/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-4.3.4+hiredis/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-4.3.4+hiredis/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: faults/error inside an EXEC array [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: faults/EXEC nil after WATCH [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: transactions/EXEC array holding a map of fields and a nested array [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: faults/error inside an EXEC array [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: faults/EXEC nil after WATCH [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: transactions/EXEC array holding a map of fields and a nested array [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: faults/error inside an EXEC array [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: faults/EXEC nil after WATCH [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-4.3.4/resp2]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-4.3.4+hiredis/resp2]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-6.4.0/resp2]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-6.4.0/resp3]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: typed-limits/a zero digest queued in a transaction [redis-py-6.4.0[decode_responses=True]/resp3]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP2 SET DECODED: False\n.*RESP2 ZADD THROWN: ValueError: invalid literal for int\(\) with base 10: b'QUEUED'\n.*RESP2 HGETALL DECODED: \{81: 85, 69: 68\}\n.*RESP2 STRLEN THROWN: ValueError: invalid literal for int\(\) with base 10: b'QUEUED'\n
# expect: (?s)RESP2 SET DECODED: False\n.*RESP2 ZADD THROWN: ValueError: invalid literal for int\(\) with base 10: b'QUEUED'\n.*RESP2 HGETALL DECODED: \{81: 85, 69: 68\}\n.*RESP3 SET DECODED: False\n
# expect: (?s)RESP2 SET DECODED: False\n.*RESP2 ZADD THROWN: ValueError: invalid literal for int\(\) with base 10: b'QUEUED'\n.*RESP2 HGETALL DECODED: \{81: 85, 69: 68\}\n.*RESP2 STRLEN THROWN: ValueError: invalid literal for int\(\) with base 10: b'QUEUED'\n
# expect: (?s)RESP2 SET DECODED: False\n.*RESP2 ZADD THROWN: ValueError: invalid literal for int\(\) with base 10: 'QUEUED'\n.*RESP2 HGETALL DECODED: \{'Q': 'U', 'E': 'D'\}\n.*
# expect: (?s)RESP2 SET DECODED: False\n.*RESP2 ZADD THROWN: ValueError: invalid literal for int\(\) with base 10: 'QUEUED'\n.*RESP2 HGETALL DECODED: \{'Q': 'U', 'E': 'D'\}\n.*RESP3 SET DECODED: False\n
from lib import PROTOS, client, step


for p in PROTOS:
    r = client(p)
    step('RESP%d MULTI' % p, r, 'MULTI')
    print('wire: +QUEUED\\r\\n for each')
    step('RESP%d SET' % p, r, 'SET', 'repro:key', 'v')
    step('RESP%d ZADD' % p, r, 'ZADD', 'repro:z', '2.5', 'm')
    step('RESP%d HGETALL' % p, r, 'HGETALL', 'repro:h')
    step('RESP%d STRLEN' % p, r, 'STRLEN', 'repro:key')
    step('RESP%d DISCARD' % p, r, 'DISCARD')
