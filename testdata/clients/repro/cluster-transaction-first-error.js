// repro: the cluster clients' transaction APIs keep their standalone behaviour: node-redis 6.3.1's createCluster().multi().addCommand(key, false, args).exec() after a queue-time error ("-ERR unknown command", "-ERR wrong number of arguments") rejects with that error, not the EXECABORT of EXEC; valkey-glide 2.5.2's GlideClusterClient exec(new ClusterBatch(true), false) raises the queue-time "wrong number of arguments" too (raiseOnError false), not the EXECABORT, and turns EXEC's error element "-WRONGTYPE Operation against a key..." into a RequestError reading "WRONGTYPE: Operation against a key..." (a colon added), and in RESP2 ZSCORE's blob string "$3\r\n2.5\r\n" into the number 2.5. Against a cluster of 3 primaries, every key in one slot.
// cluster: true
// finds: transactions/EXECABORT error after an unknown command at queue time [node-redis-6.3.1/cluster/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [node-redis-6.3.1/cluster/resp3]
// finds: errors/EXECABORT error after an error at queue time [node-redis-6.3.1/cluster/resp2]
// finds: errors/EXECABORT error after an error at queue time [node-redis-6.3.1/cluster/resp3]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/cluster/resp2]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/cluster/resp3]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/cluster/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/cluster/resp3]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide-2.5.2/cluster/resp2]
// run: node
// expect: (?s)node-redis RESP2 exec SET NOSUCHCMD THROWN: \[SimpleError: ERR unknown command 'NOSUCHCMD'.*node-redis RESP2 exec SET GET THROWN: \[SimpleError: ERR wrong number of arguments for 'get' command\]\n.*node-redis RESP3 exec SET NOSUCHCMD THROWN: \[SimpleError: ERR unknown command 'NOSUCHCMD'.*node-redis RESP3 exec SET GET THROWN: \[SimpleError: ERR wrong number of arguments for 'get' command\]\n.*valkey-glide RESP2 exec SET GET THROWN: RequestError: .*wrong number of arguments for 'get' command\n.*valkey-glide RESP2 exec SET LPUSH STRLEN DECODED: \["OK","\[RequestError: WRONGTYPE: Operation against a key holding the wrong kind of value\]",1\]\n.*valkey-glide RESP2 exec ZADD ZSCORE DECODED: \[1,2.5\] \(ZSCORE: number\)\n.*valkey-glide RESP3 exec SET GET THROWN: RequestError: .*wrong number of arguments for 'get' command\n.*valkey-glide RESP3 exec SET LPUSH STRLEN DECODED: \["OK","\[RequestError: WRONGTYPE: Operation against a key holding the wrong kind of value\]",1\]\n
const { client, main } = require('./lib');
const shown = (v) => JSON.stringify(v.map((x) => (x instanceof Error ? '[' + x.constructor.name + ': ' + x.message + ']' : x)));
const run = async (label, c, cmds) => {
  try {
    console.log(label, 'DECODED:', shown(await c.batch('multi', cmds)));
  } catch (e) {
    console.log(label, 'THROWN:', e.constructor.name === 'RequestError' ? String(e) : '[' + e.constructor.name + ': ' + e.message + ']');
  }
};
main(async () => {
  const k = 'repro:{tx}k', z = 'repro:{tx}z';
  for (const p of [2, 3]) {
    const c = await client('node-redis-cluster', p);
    console.log("wire: +OK\\r\\n+QUEUED\\r\\n-ERR unknown command 'NOSUCHCMD'...\\r\\n-EXECABORT Transaction discarded because of previous errors.\\r\\n");
    await run('node-redis RESP' + p + ' exec SET NOSUCHCMD', c, [['SET', k, 'v'], ['NOSUCHCMD', k]]);
    await run('node-redis RESP' + p + ' exec SET GET', c, [['SET', k, 'v'], ['GET']]);
    c.close();
  }
  for (const p of [2, 3]) {
    const c = await client('valkey-glide-cluster', p);
    await c.do(['DEL', k, z]);
    await run('valkey-glide RESP' + p + ' exec SET GET', c, [['SET', k, 'v'], ['GET']]);
    console.log('wire: *3\\r\\n+OK\\r\\n-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n:1\\r\\n');
    await run('valkey-glide RESP' + p + ' exec SET LPUSH STRLEN', c, [['SET', k, 'v'], ['LPUSH', k, 'x'], ['STRLEN', k]]);
    if (p === 2) {
      console.log('wire: *2\\r\\n:1\\r\\n$3\\r\\n2.5\\r\\n');
      const v = await c.batch('multi', [['ZADD', z, '2.5', 'm'], ['ZSCORE', z, 'm']]);
      console.log('valkey-glide RESP2 exec ZADD ZSCORE DECODED:', shown(v), '(ZSCORE: ' + typeof v[1] + ')');
    }
    await c.do(['DEL', k, z]);
    c.close();
  }
});
