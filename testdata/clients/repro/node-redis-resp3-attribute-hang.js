// repro: node-redis 6.3.1 on RESP3 never settles client.sendCommand(['DEBUG', 'PROTOCOL', 'attrib']), whose reply is an attribute ("|1\r\n$14\r\nkey-popularity\r\n...") before a blob string, nor an EXEC whose array holds such a reply.
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-6.3.1/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-6.3.1/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1/resp3]
// finds: faults/attribute before a reply [node-redis-6.3.1/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-6.3.1/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*RESP3 EXEC HANG: no result after 2s\n
const { client, step, main } = require('./lib');
main(async () => {
  let c = await client('node-redis', 3);
  console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
  await step('RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  c.close();
  c = await client('node-redis', 3);
  await step('RESP3 MULTI', c, ['MULTI']);
  await step('RESP3 DEBUG PROTOCOL attrib queued', c, ['DEBUG', 'PROTOCOL', 'attrib']);
  await step('RESP3 EXEC', c, ['EXEC']);
  c.close();
});
