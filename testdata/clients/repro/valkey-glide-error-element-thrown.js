// repro: valkey-glide throws the first error element of an array reply (EXEC with an error from INCR or LPUSH, a Lua table holding error_reply, even two levels down) as the whole call's error, losing the array. In a batch (exec(new Batch(false), false)) the array keeps its error element, as a RequestError whose text is rewritten ("An error was signalled by the server: - BusyLoadingError: loading").
// finds: errors/EXEC array with an error element from INCR on a string [valkey-glide-2.5.2/resp2]
// finds: generated/array of one READONLY error from Lua [valkey-glide-2.5.2/resp2]
// finds: generated/array of one READONLY error from Lua [valkey-glide-2.5.2/resp3]
// finds: errors/EXEC array with an error element from INCR on a string [valkey-glide-2.5.2/resp3]
// finds: errors/array with an error element from a Lua table [valkey-glide-2.5.2/resp2]
// finds: errors/array with an error element from a Lua table [valkey-glide-2.5.2/resp3]
// finds: errors/nested array with an error element two levels down [valkey-glide-2.5.2/resp2]
// finds: errors/nested array with an error element two levels down [valkey-glide-2.5.2/resp3]
// finds: faults/error inside an EXEC array [valkey-glide-2.5.2/resp2]
// finds: faults/error inside an EXEC array [valkey-glide-2.5.2/resp3]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide-2.5.2/resp3]
// finds: errors/array with an error element from a Lua table [valkey-glide-2.5.2/cluster/resp2]
// finds: errors/nested array with an error element two levels down [valkey-glide-2.5.2/cluster/resp2]
// finds: errors/array with an error element from a Lua table [valkey-glide-2.5.2/cluster/resp3]
// finds: errors/nested array with an error element two levels down [valkey-glide-2.5.2/cluster/resp3]
// finds: generated/array that starts with a LOADING error, then a blob string [valkey-glide-2.5.2/resp2]
// finds: generated/array that starts with a LOADING error, then a blob string [valkey-glide-2.5.2/resp3]
// finds: generated/array that starts with a MOVED error, then an integer [valkey-glide-2.5.2/resp2]
// finds: generated/array that starts with a MOVED error, then an integer [valkey-glide-2.5.2/resp3]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [valkey-glide-2.5.2/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [valkey-glide-2.5.2/resp3]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [valkey-glide-2.5.2/pipeline/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [valkey-glide-2.5.2/pipeline/resp3]
// run: node
// expect: (?s)RESP2 EVAL THROWN: RequestError: .*boom\n.*RESP2 EVAL nested THROWN: RequestError: MYERR: deep\n.*RESP2 EXEC THROWN: RequestError: .*value is not an integer.*RESP2 EXEC WRONGTYPE THROWN: RequestError: WRONGTYPE.*RESP3 EVAL THROWN: RequestError: .*boom\n.*RESP3 EXEC THROWN: RequestError: .*value is not an integer.*RESP3 batch LOADING, TTL DECODED: \[ \[ 'Error\(An error was signalled by the server: - BusyLoadingError: loading\)', 'after' \], -2 \]
const { client, step, main, show } = require('./lib');
// errs shows the errors inside a value by their message only.
const errs = (v) => (v instanceof Error ? `Error(${v.message.split('\n')[0]})` : Array.isArray(v) ? v.map(errs) : v);
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    console.log('wire: *2\\r\\n:1\\r\\n-boom\\r\\n');
    await step('RESP' + p + ' EVAL', c, ['EVAL', "return {1, redis.error_reply('boom')}", '0']);
    console.log('wire: *2\\r\\n:1\\r\\n*2\\r\\n:2\\r\\n-MYERR deep\\r\\n');
    await step('RESP' + p + ' EVAL nested', c, ['EVAL', "return {1,{2,redis.error_reply('MYERR deep')}}", '0']);
    await c.do(['SET', 'repro:s', 'text']);
    await c.do(['MULTI']);
    await c.do(['INCR', 'repro:s']);
    await c.do(['PING']);
    console.log('wire: *2\\r\\n-ERR value is not an integer or out of range\\r\\n+PONG\\r\\n');
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    await c.do(['MULTI']);
    await c.do(['PING']);
    await c.do(['LPUSH', 'repro:s', 'x']);
    await c.do(['PING']);
    console.log('wire: *3\\r\\n+PONG\\r\\n-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n+PONG\\r\\n');
    await step('RESP' + p + ' EXEC WRONGTYPE', c, ['EXEC']);
    console.log('wire: *2\\r\\n-LOADING loading\\r\\n$5\\r\\nafter\\r\\n then :-2\\r\\n (a batch, raiseOnError false)');
    await step('RESP' + p + ' batch LOADING, TTL', { do: () => c.batch('pipeline', [['EVAL', "return {{err='LOADING loading'}, 'after'}", '0'], ['TTL', 'repro:missing']]) }, null, (v) => show(errs(v)));
    c.close();
  }
});
