// repro: valkey-glide 2.5.2's exec(new Batch(true), false) converts what EXEC's array holds as it converts each command's own reply: an error element "-WRONGTYPE Operation against a key..." becomes a RequestError whose text reads "WRONGTYPE: Operation against a key..." (a colon added), and in RESP2 ZSCORE's blob string "$3\r\n2.5\r\n" the number 2.5.
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/pipeline/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/pipeline/resp3]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide-2.5.2/pipeline/resp2]
// run: node
// expect: (?s)RESP2 exec SET LPUSH STRLEN DECODED: \["OK","\[RequestError: WRONGTYPE: Operation against a key holding the wrong kind of value\]",1\]\n.*RESP2 exec ZADD ZSCORE DECODED: \[1,2.5\] \(ZSCORE: number\)\n.*RESP3 exec SET LPUSH STRLEN DECODED: \["OK","\[RequestError: WRONGTYPE: Operation against a key holding the wrong kind of value\]",1\]\n
const { client, main } = require('./lib');
const shown = (v) => JSON.stringify(v.map((x) => (x instanceof Error ? '[' + x.constructor.name + ': ' + x.message + ']' : x)));
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await c.do(['DEL', 'repro:k', 'repro:z']);
    console.log('wire: *3\\r\\n+OK\\r\\n-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n:1\\r\\n');
    console.log('RESP' + p + ' exec SET LPUSH STRLEN DECODED:', shown(await c.batch('multi', [['SET', 'repro:k', 'v'], ['LPUSH', 'repro:k', 'x'], ['STRLEN', 'repro:k']])));
    if (p === 2) {
      console.log('wire: *2\\r\\n:1\\r\\n$3\\r\\n2.5\\r\\n');
      const v = await c.batch('multi', [['ZADD', 'repro:z', '2.5', 'm'], ['ZSCORE', 'repro:z', 'm']]);
      console.log('RESP2 exec ZADD ZSCORE DECODED:', shown(v), '(ZSCORE: ' + typeof v[1] + ')');
    }
    await c.do(['DEL', 'repro:k', 'repro:z']);
    c.close();
  }
});
