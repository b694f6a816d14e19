# repro: redis-py turns the blob strings of ZSCORE, ZINCRBY and INCRBYFLOAT ("$3\r\ninf\r\n", "$3\r\n0.3\r\n") into Python floats by its response callbacks.
# finds: faults/ZSCORE inf and -inf [redis-py-4.3.4/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-4.3.4/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-4.3.4/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-4.3.4/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-4.3.4/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-4.3.4/resp2]
# finds: faults/ZSCORE inf and -inf [redis-py-6.4.0/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-6.4.0/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-6.4.0/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-6.4.0/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-6.4.0/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0/resp3]
# finds: faults/ZSCORE inf and -inf [redis-py-4.3.4+hiredis/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-4.3.4+hiredis/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-4.3.4+hiredis/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-4.3.4+hiredis/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-4.3.4+hiredis/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-4.3.4+hiredis/resp2]
# finds: faults/ZSCORE inf and -inf [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: faults/ZSCORE inf and -inf [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: faults/ZSCORE inf and -inf [redis-py-4.3.4/cluster/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-4.3.4/cluster/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-4.3.4/cluster/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-4.3.4/cluster/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-4.3.4/cluster/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-4.3.4/cluster/resp2]
# finds: faults/ZSCORE inf and -inf [redis-py-6.4.0/cluster/resp2]
# finds: faults/double precision of ZINCRBY and a maximal double [redis-py-6.4.0/cluster/resp2]
# finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [redis-py-6.4.0/cluster/resp2]
# finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [redis-py-6.4.0/cluster/resp2]
# finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [redis-py-6.4.0/cluster/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0/cluster/resp2]
# finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [redis-py-6.4.0/cluster/resp3]
# run: python-4.3.4
# run: python-6.4.0
# run: python-4.3.4+hiredis
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP2 ZSCORE DECODED: inf\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n
# expect: (?s)RESP2 ZSCORE DECODED: inf\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n.*RESP3 INCRBYFLOAT DECODED: 0\.3\n
# expect: (?s)RESP2 ZSCORE DECODED: inf\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n
# expect: (?s)RESP2 ZSCORE DECODED: inf\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n
# expect: (?s)RESP2 ZSCORE DECODED: inf\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n.*RESP3 INCRBYFLOAT DECODED: 0\.3\n
from lib import PROTOS, client, step


for p in PROTOS:
    r = client(p)
    r.execute_command('DEL', 'repro:z', 'repro:f')
    r.execute_command('ZADD', 'repro:z', 'inf', 'hi', '0.1', 'a')
    r.execute_command('SET', 'repro:f', '0.1')
    if p == 2:
        print('wire: $3\\r\\ninf\\r\\n')
        step('RESP%d ZSCORE' % p, r, 'ZSCORE', 'repro:z', 'hi')
        print('wire: $19\\r\\n0.30000000000000004\\r\\n')
        step('RESP%d ZINCRBY' % p, r, 'ZINCRBY', 'repro:z', '0.2', 'a')
    print('wire: $3\\r\\n0.3\\r\\n')
    step('RESP%d INCRBYFLOAT' % p, r, 'INCRBYFLOAT', 'repro:f', '0.2')
