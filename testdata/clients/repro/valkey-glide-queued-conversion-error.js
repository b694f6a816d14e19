// repro: valkey-glide answers a command queued inside MULTI ("+QUEUED\r\n") with a conversion error when the command is ZSCORE or HGETALL, because it converts the reply by command name.
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide-2.5.2/resp2]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [valkey-glide-2.5.2/resp3]
// finds: transactions/EXEC array holding a map of fields and a nested array [valkey-glide-2.5.2/resp2]
// finds: transactions/EXEC array holding a map of fields and a nested array [valkey-glide-2.5.2/resp3]
// run: node
// expect: (?s)RESP2 ZSCORE THROWN: RequestError: Response was of incompatible type.*RESP2 HGETALL THROWN: RequestError: Response couldn't be converted to map.*RESP3 ZSCORE THROWN: RequestError: Response was of incompatible type.*RESP3 HGETALL THROWN: RequestError: Response couldn't be converted to map
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide', p);
    await c.do(['MULTI']);
    console.log('wire: +QUEUED\\r\\n');
    await step('RESP' + p + ' ZSCORE', c, ['ZSCORE', 'repro:z', 'm']);
    console.log('wire: +QUEUED\\r\\n');
    await step('RESP' + p + ' HGETALL', c, ['HGETALL', 'repro:h']);
    await step('RESP' + p + ' EXEC', c, ['EXEC']);
    c.close();
  }
});
