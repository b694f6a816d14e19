# repro: redis-py raises BusyLoadingError (a ConnectionError) for a LOADING error that is an element of an array ("*2\r\n-LOADING loading\r\n$5\r\nafter\r\n" from EVAL) instead of returning the array with the error in it, as it does for a plain error element (-ERR); the connection stays usable. Found by respcheck clients --generate (runner/replies).
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-4.3.4/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-4.3.4+hiredis/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-4.3.4[callbacks=none]/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0/resp3]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0[callbacks=none]/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0[callbacks=none]/resp3]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-typed/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-typed/resp3]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0/cluster/resp2]
# finds: generated/array that starts with a LOADING error, then a blob string [redis-py-6.4.0/cluster/resp3]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-4.3.4/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-4.3.4+hiredis/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/resp3]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-typed/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-typed/resp3]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-4.3.4[callbacks=none]/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-4.3.4[decode_responses=True]/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0[callbacks=none]/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0[callbacks=none]/resp3]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0[decode_responses=True]/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0[decode_responses=True]/resp3]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/cluster/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/cluster/resp3]
# run: python-4.3.4
# run: python-6.4.0
# expect: (?s)RESP2 EVAL LOADING THROWN: BusyLoadingError: loading\nRESP2 ECHO next DECODED: b'next'\n.*RESP2 EVAL ERR DECODED: \[ResponseError\('plain'\), 7\]
import lib

for proto in lib.PROTOS:
    r = lib.client(proto)
    print(r'wire: *2\r\n-LOADING loading\r\n$5\r\nafter\r\n', flush=True)
    lib.step('RESP%d EVAL LOADING' % proto, r, 'EVAL', "return {{err='LOADING loading'}, 'after'}", '0')
    lib.step('RESP%d ECHO next' % proto, r, 'ECHO', 'next')
    print(r'wire: *2\r\n-ERR plain\r\n:7\r\n', flush=True)
    lib.step('RESP%d EVAL ERR' % proto, r, 'EVAL', "return {{err='ERR plain'}, 7}", '0')
