# repro: with decode_responses=True, redis-py raises UnicodeDecodeError for a blob string that is not UTF-8 (Encoder.decode with encoding_errors 'strict') instead of returning it; the connection is dropped and the next call reconnects.
# finds: blobs/blob strings of bytes that are not UTF-8 [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: blobs/blob strings of bytes that are not UTF-8 [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: blobs/blob strings of bytes that are not UTF-8 [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: blobs/blob strings of 1 MiB and 100 KB of random bytes [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: aggregates/map of a hash with two fields that are not UTF-8 from HGETALL [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: aggregates/set of two members that are not UTF-8 from SMEMBERS [redis-py-6.4.0[decode_responses=True]/resp3]
# run: python-4.3.4[decode_responses=True]
# run: python-6.4.0[decode_responses=True]
# expect: (?s)RESP2 GET THROWN: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff.*RESP2 ECHO DECODED: 'after'\n
from lib import PROTOS, client, step


for p in PROTOS:
    r = client(p)
    step('RESP%d SET' % p, r, 'SET', 'repro:bin', b'\xff\xfe')
    print('wire: $2\\r\\n\\xff\\xfe\\r\\n')
    step('RESP%d GET' % p, r, 'GET', 'repro:bin')
    step('RESP%d ECHO' % p, r, 'ECHO', 'after')
