// repro: valkey-glide turns blob-string scores and INCRBYFLOAT results ("$3\r\n1.5\r\n", "$3\r\ninf\r\n", "$3\r\n0.3\r\n") into JavaScript numbers, also after HELLO 2 on a RESP3 client.
// finds: faults/ZSCORE inf and -inf [valkey-glide-2.5.2/resp2]
// finds: faults/double precision of ZINCRBY and a maximal double [valkey-glide-2.5.2/resp2]
// finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [valkey-glide-2.5.2/resp2]
// finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [valkey-glide-2.5.2/resp2]
// finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [valkey-glide-2.5.2/resp2]
// finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [valkey-glide-2.5.2/resp2]
// finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [valkey-glide-2.5.2/resp3]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [valkey-glide-2.5.2/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [valkey-glide-2.5.2/resp3]
// finds: faults/ZSCORE inf and -inf [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/double precision of ZINCRBY and a maximal double [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/doubles inf and -inf from ZSCORE and ZINCRBY [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [valkey-glide-2.5.2/cluster/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/blob strings of long decimals from INCRBYFLOAT, and its refusal of infinity [valkey-glide-2.5.2/cluster/resp3]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 ZSCORE DECODED: 1\.5\n.*RESP2 ZSCORE inf DECODED: Infinity\n.*RESP2 ZINCRBY DECODED: 0\.30000000000000004\n.*RESP2 INCRBYFLOAT DECODED: 0\.3\n.*RESP3 INCRBYFLOAT DECODED: 0\.3\n.*RESP3 after HELLO 2 ZSCORE DECODED: 1\.5\n
const { client, step, main } = require('./lib');
main(async () => {
  const c2 = await client('valkey-glide', 2);
  await c2.do(['DEL', 'repro:z', 'repro:f']);
  await c2.do(['ZADD', 'repro:z', '1.5', 'm', 'inf', 'hi', '0.1', 'a']);
  console.log('wire: $3\\r\\n1.5\\r\\n');
  await step('RESP2 ZSCORE', c2, ['ZSCORE', 'repro:z', 'm']);
  console.log('wire: $3\\r\\ninf\\r\\n');
  await step('RESP2 ZSCORE inf', c2, ['ZSCORE', 'repro:z', 'hi']);
  console.log('wire: $19\\r\\n0.30000000000000004\\r\\n');
  await step('RESP2 ZINCRBY', c2, ['ZINCRBY', 'repro:z', '0.2', 'a']);
  await c2.do(['SET', 'repro:f', '0.1']);
  console.log('wire: $3\\r\\n0.3\\r\\n');
  await step('RESP2 INCRBYFLOAT', c2, ['INCRBYFLOAT', 'repro:f', '0.2']);
  c2.close();
  const c3 = await client('valkey-glide', 3);
  await c3.do(['SET', 'repro:f', '0.1']);
  console.log('wire: $3\\r\\n0.3\\r\\n');
  await step('RESP3 INCRBYFLOAT', c3, ['INCRBYFLOAT', 'repro:f', '0.2']);
  await step('RESP3 HELLO 2', c3, ['HELLO', '2']);
  console.log('wire: $3\\r\\n1.5\\r\\n');
  await step('RESP3 after HELLO 2 ZSCORE', c3, ['ZSCORE', 'repro:z', 'm']);
  c3.close();
});
