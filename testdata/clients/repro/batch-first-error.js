// repro: a batch with one error reply gives that error for all its commands: node-redis 6.3.1's multi().addCommand(...).execAsPipeline() rejects with the INCR's "ERR value is not an integer" and drops the pipeline's other replies (SET's +OK, GET's $4 text), and multi().exec() after a queue-time error ("-ERR unknown command", "-ERR wrong number of arguments") rejects with that error, not EXECABORT; valkey-glide 2.5.2's exec(new Batch(true), false) raises the queue-time error too (raiseOnError false), not the EXECABORT of EXEC.
// finds: errors/error between two pipelined replies [node-redis-6.3.1/pipeline/resp2]
// finds: errors/error between two pipelined replies [node-redis-6.3.1/pipeline/resp3]
// finds: transactions/EXECABORT error after an unknown command at queue time [node-redis-6.3.1/pipeline/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [node-redis-6.3.1/pipeline/resp3]
// finds: errors/EXECABORT error after an error at queue time [node-redis-6.3.1/pipeline/resp2]
// finds: errors/EXECABORT error after an error at queue time [node-redis-6.3.1/pipeline/resp3]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide-2.5.2/pipeline/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [valkey-glide-2.5.2/pipeline/resp3]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/pipeline/resp2]
// finds: errors/EXECABORT error after an error at queue time [valkey-glide-2.5.2/pipeline/resp3]
// run: node
// expect: (?s)node-redis RESP2 execAsPipeline SET INCR GET THROWN: \[SimpleError: ERR value is not an integer or out of range\]\n.*node-redis RESP2 exec SET NOSUCHCMD THROWN: \[SimpleError: ERR unknown command 'NOSUCHCMD'.*node-redis RESP2 exec SET GET THROWN: \[SimpleError: ERR wrong number of arguments for 'get' command\]\n.*node-redis RESP3 execAsPipeline SET INCR GET THROWN: \[SimpleError: ERR value is not an integer or out of range\]\n.*node-redis RESP3 exec SET NOSUCHCMD THROWN: \[SimpleError: ERR unknown command 'NOSUCHCMD'.*node-redis RESP3 exec SET GET THROWN: \[SimpleError: ERR wrong number of arguments for 'get' command\]\n.*valkey-glide RESP2 exec SET NOSUCHCMD THROWN: RequestError: .*unknown command.*valkey-glide RESP2 exec SET GET THROWN: RequestError: .*wrong number of arguments for 'get' command.*valkey-glide RESP3 exec SET NOSUCHCMD THROWN: RequestError: .*unknown command.*valkey-glide RESP3 exec SET GET THROWN: RequestError: .*wrong number of arguments for 'get' command
const { client, main } = require('./lib');
// run prints what one batch resolved with or rejected with (a class and
// message, as the user's catch sees it).
const run = async (label, c, mode, cmds) => {
  try {
    const v = await c.batch(mode, cmds);
    console.log(label, 'DECODED:', JSON.stringify(v.map((x) => (x instanceof Error ? '[' + x.constructor.name + ': ' + x.message + ']' : x))));
  } catch (e) {
    console.log(label, 'THROWN:', e.constructor.name === 'RequestError' ? String(e) : '[' + e.constructor.name + ': ' + e.message + ']');
  }
};
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('node-redis', p);
    console.log('wire: +OK\\r\\n-ERR value is not an integer or out of range\\r\\n$4\\r\\ntext\\r\\n');
    await run('node-redis RESP' + p + ' execAsPipeline SET INCR GET', c, 'pipeline', [['SET', 'repro:k', 'text'], ['INCR', 'repro:k'], ['GET', 'repro:k']]);
    console.log("wire: +OK\\r\\n+QUEUED\\r\\n-ERR unknown command 'NOSUCHCMD'...\\r\\n-EXECABORT Transaction discarded because of previous errors.\\r\\n");
    await run('node-redis RESP' + p + ' exec SET NOSUCHCMD', c, 'multi', [['SET', 'repro:k', 'v'], ['NOSUCHCMD', 'x']]);
    await run('node-redis RESP' + p + ' exec SET GET', c, 'multi', [['SET', 'repro:k', 'v'], ['GET']]);
    await c.do(['DEL', 'repro:k']);
    c.close();
  }
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await run('valkey-glide RESP' + p + ' exec SET NOSUCHCMD', c, 'multi', [['SET', 'repro:k', 'v'], ['NOSUCHCMD', 'x']]);
    await run('valkey-glide RESP' + p + ' exec SET GET', c, 'multi', [['SET', 'repro:k', 'v'], ['GET']]);
    c.close();
  }
});
