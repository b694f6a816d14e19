# repro: redis-py's transaction API (Pipeline(transaction=True).execute(raise_on_error=False)): an EXECABORT is raised as the first queue-time error ("Command # 2 (NOSUCHCMD x) of pipeline caused error: unknown command ..."), not as the EXECABORT error, for every command; ZSCORE's element of EXEC's array, a blob string in RESP2, comes back as a float (its callback); in RESP3 an attributed element raises InvalidResponse.
# finds: errors/EXECABORT error after an error at queue time [redis-py-4.3.4/pipeline/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0/pipeline/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-py-6.4.0/pipeline/resp3]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-4.3.4/pipeline/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0/pipeline/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-py-6.4.0/pipeline/resp3]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-4.3.4/pipeline/resp2]
# finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [redis-py-6.4.0/pipeline/resp2]
# finds: attributes/two attributed blob strings pipelined [redis-py-6.4.0/pipeline/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-py-6.4.0/pipeline/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-py-6.4.0/pipeline/resp3]
# run: python-4.3.4
# run: python-6.4.0
# expect: (?s)RESP2 EXECABORT THROWN: ResponseError: Command # 2 \(NOSUCHCMD x\) of pipeline caused error: unknown command 'NOSUCHCMD'.*RESP2 ZSCORE DECODED: \[1, 2.5\]\n
# expect: (?s)RESP2 EXECABORT THROWN: ResponseError: Command # 2 \(NOSUCHCMD x\) of pipeline caused error: unknown command 'NOSUCHCMD'.*RESP2 ZSCORE DECODED: \[1, 2.5\]\n.*RESP3 EXECABORT THROWN: ResponseError: Command # 2 \(NOSUCHCMD x\) of pipeline caused error: unknown command.*RESP3 attribute in EXEC THROWN: InvalidResponse: Protocol Error: b'\|1'\n.*RESP3 attribute in a pipeline THROWN: InvalidResponse: Protocol Error: b'\|1'\n
from lib import PROTOS, batch, client, step


for p in PROTOS:
    r = client(p)
    print('wire: +OK +QUEUED -ERR unknown command ... -EXECABORT Transaction discarded because of previous errors.')
    batch('RESP%d EXECABORT' % p, r, True, ['SET', 'repro:key', 'v'], ['NOSUCHCMD', 'x'])
    print('wire: EXEC *2 :1 $3 2.5 (RESP2), *2 :1 ,2.5 (RESP3)')
    batch('RESP%d ZSCORE' % p, r, True, ['ZADD', 'repro:z', '2.5', 'm'], ['ZSCORE', 'repro:z', 'm'])
    step('RESP%d DEL' % p, r, 'DEL', 'repro:z')
    if p == 3:
        print('wire: EXEC *1 |1 ... (DEBUG PROTOCOL attrib)')
        batch('RESP3 attribute in EXEC', r, True, ['DEBUG', 'PROTOCOL', 'attrib'])
        batch('RESP3 attribute in a pipeline', client(3), False, ['DEBUG', 'PROTOCOL', 'attrib'], ['PING'])
