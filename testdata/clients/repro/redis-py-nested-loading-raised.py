# repro: redis-py raises BusyLoadingError (a ConnectionError) for a LOADING error that is an element of an array ("*2\r\n-LOADING loading\r\n$5\r\nafter\r\n" from EVAL) instead of returning the array with the error in it, as it does for a plain error element (-ERR); the connection stays usable. Found by respcheck clients --generate (runner/replies).
# run: python-4.3.4
# run: python-6.4.0
# expect: (?s)RESP2 EVAL LOADING THROWN: BusyLoadingError: loading\nRESP2 ECHO next DECODED: b'next'\nRESP2 EVAL ERR DECODED: \[ResponseError\('plain'\), 7\]
import lib

for proto in lib.PROTOS:
    r = lib.client(proto)
    print(r'wire: *2\r\n-LOADING loading\r\n$5\r\nafter\r\n', flush=True)
    lib.step('RESP%d EVAL LOADING' % proto, r, 'EVAL', "return {{err='LOADING loading'}, 'after'}", '0')
    lib.step('RESP%d ECHO next' % proto, r, 'ECHO', 'next')
    print(r'wire: *2\r\n-ERR plain\r\n:7\r\n', flush=True)
    lib.step('RESP%d EVAL ERR' % proto, r, 'EVAL', "return {{err='ERR plain'}, 7}", '0')
