// repro: ioredis 6.0.0 on RESP3 (with any replyMapping or stringNumbers, and through pipeline() and multi()) rejects the attribute type of DEBUG PROTOCOL attrib ("|1\r\n$14\r\nkey-popularity\r\n...") with "Unknown RESP type 124", alone or inside EXEC, and the connection's later replies no longer line up.
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis-6.0.0/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis-6.0.0/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0/resp3]
// finds: faults/attribute before a reply [ioredis-6.0.0/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis-6.0.0/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: faults/attribute before a reply [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis-6.0.0[replyMapping=resp3]/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: faults/attribute before a reply [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis-6.0.0[stringNumbers=true]/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0/pipeline/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0/pipeline/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0/pipeline/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [ioredis-6.0.0/cluster/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [ioredis-6.0.0/cluster/resp3]
// finds: attributes/two attributed blob strings pipelined [ioredis-6.0.0/cluster/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [ioredis-6.0.0/cluster/resp3]
// finds: faults/attribute before a reply [ioredis-6.0.0/cluster/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [ioredis-6.0.0/cluster/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [ioredis-6.0.0/cluster/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*RESP3 EXEC THROWN: Error: Unknown RESP type 124 "\|".*replyMapping=resp3 RESP3 DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*replyMapping=resp3 RESP3 EXEC THROWN: Error: Unknown RESP type 124 "\|".*stringNumbers=true RESP3 DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*stringNumbers=true RESP3 EXEC THROWN: Error: Unknown RESP type 124 "\|".*RESP3 pipeline of two DEBUG PROTOCOL attrib DECODED: \[Error: Unknown RESP type 124 "\|".*RESP3 ECHO after the pipeline THROWN: Error: Connection is closed.*RESP3 multi of DEBUG PROTOCOL attrib THROWN: Error: Unknown RESP type 124 "\|".*RESP3 ECHO after the multi THROWN: Error: Connection is closed
const { client, step, batchStep, reportUncaught, main } = require('./lib');
reportUncaught();
// ioredis 6.0.0, then with replyMapping resp3 and with stringNumbers (the
// same decoder), then its pipeline() and multi() (ioredis-6.0.0/pipeline).
main(async () => {
  for (const [label, opts] of [['', undefined], ['replyMapping=resp3 ', { options: { replyMapping: 'resp3' } }], ['stringNumbers=true ', { options: { stringNumbers: true } }]]) {
    let c = await client('ioredis', 3, opts);
    console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
    await step(label + 'RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
    await step(label + 'RESP3 ECHO next', c, ['ECHO', 'next']);
    c.close();
    c = await client('ioredis', 3, opts);
    await step(label + 'RESP3 MULTI', c, ['MULTI']);
    await step(label + 'RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
    await step(label + 'RESP3 EXEC', c, ['EXEC']);
    c.close();
  }
  let c = await client('ioredis', 3);
  const errs = (v) => '[' + v.map(String).join(', ') + ']';
  await batchStep('RESP3 pipeline of two DEBUG PROTOCOL attrib', c, 'pipeline', [['DEBUG', 'PROTOCOL', 'attrib'], ['DEBUG', 'PROTOCOL', 'attrib']], errs);
  await step('RESP3 ECHO after the pipeline', c, ['ECHO', 'next']);
  c.close();
  c = await client('ioredis', 3);
  await batchStep('RESP3 multi of DEBUG PROTOCOL attrib', c, 'multi', [['DEBUG', 'PROTOCOL', 'attrib']]);
  await step('RESP3 ECHO after the multi', c, ['ECHO', 'next']);
  c.close();
});
