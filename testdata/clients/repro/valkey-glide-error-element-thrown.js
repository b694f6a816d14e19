// repro: valkey-glide throws the first error element of an array reply (EXEC with an error from INCR or LPUSH, a Lua table holding error_reply, even two levels down) as the whole call's error, losing the array.
// finds: errors/EXEC array with an error element from INCR on a string [valkey-glide/resp2]
// finds: errors/EXEC array with an error element from INCR on a string [valkey-glide/resp3]
// finds: errors/array with an error element from a Lua table [valkey-glide/resp2]
// finds: errors/array with an error element from a Lua table [valkey-glide/resp3]
// finds: errors/nested array with an error element two levels down [valkey-glide/resp2]
// finds: errors/nested array with an error element two levels down [valkey-glide/resp3]
// finds: faults/error inside an EXEC array [valkey-glide/resp2]
// finds: faults/error inside an EXEC array [valkey-glide/resp3]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [valkey-glide/resp3]
// run: node
// expect: (?s)RESP2 EVAL THROWN: RequestError: .*boom\n.*RESP2 EVAL nested THROWN: RequestError: MYERR: deep\n.*RESP2 EXEC THROWN: RequestError: .*value is not an integer.*RESP2 EXEC WRONGTYPE THROWN: RequestError: WRONGTYPE.*RESP3 EVAL THROWN: RequestError: .*boom\n.*RESP3 EXEC THROWN: RequestError: .*value is not an integer
const util = require('util');
const { GlideClient, ProtocolVersion, Logger } = require('@valkey/valkey-glide');
Logger.init('off');
const [host, port] = process.argv[2].split(':');
const show = (v) => util.inspect(v, { depth: null, breakLength: Infinity, compact: true });
const client = (p) => GlideClient.createClient({ addresses: [{ host, port: +port }], protocol: p === 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2 });
// step: one call with a 2 s timer; prints DECODED, THROWN or HANG.
const step = (label, c, args) => new Promise((resolve) => {
  let hung = false;
  const t = setTimeout(() => { hung = true; console.log(label, 'HANG: no result after 2s'); resolve(); }, 2000);
  c.customCommand(args).then((v) => { if (hung) return; clearTimeout(t); console.log(label, 'DECODED:', show(v)); resolve(v); },
    (e) => { if (hung) return; clearTimeout(t); console.log(label, 'THROWN:', String(e).split('\n')[0]); resolve(); });
});
(async () => {
  for (const p of [2, 3]) {
    const c = await client(p);
    console.log('wire: *2\\r\\n:1\\r\\n-boom\\r\\n');
    await step('RESP' + p + ' EVAL', c, ['EVAL', "return {1, redis.error_reply('boom')}", '0']);
    console.log('wire: *2\\r\\n:1\\r\\n*2\\r\\n:2\\r\\n-MYERR deep\\r\\n');
    await step('RESP' + p + ' EVAL nested', c, ['EVAL', "return {1,{2,redis.error_reply('MYERR deep')}}", '0']);
    await c.customCommand(['SET', 'repro:s', 'text']);
    await c.customCommand(['MULTI']);
    await c.customCommand(['INCR', 'repro:s']);
    await c.customCommand(['PING']);
    console.log('wire: *2\\r\\n-ERR value is not an integer or out of range\\r\\n+PONG\\r\\n');
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    await c.customCommand(['MULTI']);
    await c.customCommand(['PING']);
    await c.customCommand(['LPUSH', 'repro:s', 'x']);
    await c.customCommand(['PING']);
    console.log('wire: *3\\r\\n+PONG\\r\\n-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n+PONG\\r\\n');
    await step('RESP' + p + ' EXEC WRONGTYPE', c, ['EXEC']);
    c.close();
  }
  process.exit(0);
})().catch((e) => { console.log("THROWN:", String(e)); process.exit(0); });
