// repro: ioredis 6.0.0 on RESP3 rejects the attribute type of DEBUG PROTOCOL attrib ("|1\r\n$14\r\nkey-popularity\r\n...") with "Unknown RESP type 124", alone or inside EXEC, and the connection's later replies no longer line up.
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis-6.0.0/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis-6.0.0/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0/resp3]
// finds: faults/attribute before a reply [ioredis-6.0.0/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis-6.0.0/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*RESP3 EXEC THROWN: Error: Unknown RESP type 124 "\|"
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
main(async () => {
  let c = await client('ioredis', 3);
  console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 ECHO next', c, ['ECHO', 'next']);
  c.close();
  c = await client('ioredis', 3);
  await step('RESP3 MULTI', c, ['MULTI']);
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 EXEC', c, ['EXEC']);
  c.close();
});
