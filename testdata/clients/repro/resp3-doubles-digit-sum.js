// repro: node-redis 5.12.1 on RESP3 and ioredis 6.0.0 with replyMapping resp3 (a decoder ported from node-redis 5) parse a RESP3 double digit by digit, adding each decimal digit times 1e-1, 1e-2, ... (decodeDoubleDecimal, DOUBLE_DECIMAL_MULTIPLIERS): ",0.30000000000000004" becomes 0.3000000000000001, ",1.7976931348623157e+308" Infinity and ",5e-324" 0; node-redis 6.3.1 reads the exact doubles.
// finds: faults/double precision of ZINCRBY and a maximal double [node-redis-5.12.1/resp3]
// finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [node-redis-5.12.1/resp3]
// finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [node-redis-5.12.1/resp3]
// finds: faults/double precision of ZINCRBY and a maximal double [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [ioredis-6.0.0[replyMapping=resp3]/resp3]
// run: node
// expect: (?s)node-redis-5.12.1 RESP3 ZINCRBY DECODED: 0.3000000000000001\n.*node-redis-5.12.1 RESP3 ZSCORE max DECODED: Infinity\n.*node-redis-5.12.1 RESP3 ZSCORE min DECODED: 0\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 ZINCRBY DECODED: 0.3000000000000001\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 ZSCORE max DECODED: Infinity\n.*ioredis-6.0.0\[replyMapping=resp3\] RESP3 ZSCORE min DECODED: 0\n.*node-redis-6.3.1 RESP3 ZINCRBY DECODED: 0.30000000000000004\n.*node-redis-6.3.1 RESP3 ZSCORE max DECODED: 1.7976931348623157e\+308\n.*node-redis-6.3.1 RESP3 ZSCORE min DECODED: 5e-324\n
const { client, step, main } = require('./lib');
main(async () => {
  for (const [label, lib, opts] of [['node-redis-5.12.1', 'node-redis-5'], ['ioredis-6.0.0[replyMapping=resp3]', 'ioredis', { options: { replyMapping: 'resp3' } }], ['node-redis-6.3.1', 'node-redis']]) {
    const c = await client(lib, 3, opts);
    await c.do(['DEL', 'repro:z']);
    await c.do(['ZADD', 'repro:z', '0.1', 'm', '1.7976931348623157e308', 'max', '5e-324', 'min']);
    console.log('wire: ,0.30000000000000004\\r\\n');
    await step(label + ' RESP3 ZINCRBY', c, ['ZINCRBY', 'repro:z', '0.2', 'm']);
    console.log('wire: ,1.7976931348623157e+308\\r\\n');
    await step(label + ' RESP3 ZSCORE max', c, ['ZSCORE', 'repro:z', 'max']);
    console.log('wire: ,5e-324\\r\\n');
    await step(label + ' RESP3 ZSCORE min', c, ['ZSCORE', 'repro:z', 'min']);
    await c.do(['DEL', 'repro:z']);
    c.close();
  }
});
