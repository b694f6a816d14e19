# repro: redis-py's Pipeline.execute(raise_on_error=False) raises BusyLoadingError for the whole pipeline when one reply is an array holding a LOADING error element ("*2\r\n-LOADING loading\r\n$5\r\nafter\r\n" from EVAL), so the other commands' replies (TTL's -1) are lost; an array holding a plain -ERR element is returned in place with the rest. The same error class for a NOAUTH element (AuthenticationError). Found by respcheck clients --generate (runner/replies).
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-4.3.4/pipeline/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/pipeline/resp2]
# finds: generated/pipeline of an array holding a LOADING error, then TTL [redis-py-6.4.0/pipeline/resp3]
# run: python-4.3.4
# run: python-6.4.0
# expect: (?s)RESP2 pipeline LOADING THROWN: BusyLoadingError: loading\n.*RESP2 pipeline NOAUTH THROWN: AuthenticationError: .*\n.*RESP2 pipeline ERR DECODED: \[\[ResponseError\('plain'\), b'after'\], -1\]
import lib

r = lib.client(2)
r.execute_command('SET', 'repro:k', 'v')
for code in ('LOADING loading', 'NOAUTH Authentication required.', 'ERR plain'):
    print(r'wire: *2\r\n-%s\r\n$5\r\nafter\r\n then :-1\r\n' % code, flush=True)
    lib.batch('RESP2 pipeline ' + code.split()[0], r, False,
              ('EVAL', "return {{err='%s'}, 'after'}" % code, '0'), ('TTL', 'repro:k'))
