// repro: node-redis 6.3.1 (with or without a typeMapping, and through multi().execAsPipeline() and multi().exec()) and 5.12.1 on RESP3 never settle client.sendCommand(['DEBUG', 'PROTOCOL', 'attrib']), whose reply is an attribute ("|1\r\n$14\r\nkey-popularity\r\n...") before a blob string, nor an EXEC whose array holds such a reply.
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-6.3.1/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-6.3.1/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1/resp3]
// finds: faults/attribute before a reply [node-redis-6.3.1/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-6.3.1/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-5.12.1/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-5.12.1/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-5.12.1/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-5.12.1/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-5.12.1/resp3]
// finds: faults/attribute before a reply [node-redis-5.12.1/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-5.12.1/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: faults/attribute before a reply [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-6.3.1[typeMapping=Map+Buffer]/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: faults/attribute before a reply [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-6.3.1[typeMapping=Set+String]/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1/pipeline/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1/pipeline/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1/pipeline/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [node-redis-6.3.1/cluster/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [node-redis-6.3.1/cluster/resp3]
// finds: attributes/two attributed blob strings pipelined [node-redis-6.3.1/cluster/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [node-redis-6.3.1/cluster/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [node-redis-6.3.1/cluster/resp3]
// finds: faults/attribute before a reply [node-redis-6.3.1/cluster/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [node-redis-6.3.1/cluster/resp3]
// run: node
// expect: (?s)RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*RESP3 EXEC HANG: no result after 2s\n.*node-redis-5\.12\.1 RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*node-redis-5\.12\.1 RESP3 EXEC HANG: no result after 2s\n.*node-redis-6\.3\.1\[typeMapping=Map\+Buffer\] RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*node-redis-6\.3\.1\[typeMapping=Map\+Buffer\] RESP3 EXEC HANG: no result after 2s\n.*node-redis-6\.3\.1\[typeMapping=Set\+String\] RESP3 DEBUG PROTOCOL attrib HANG: no result after 2s\n.*node-redis-6\.3\.1\[typeMapping=Set\+String\] RESP3 EXEC HANG: no result after 2s\n.*RESP3 execAsPipeline of two DEBUG PROTOCOL attrib HANG: no result after 2s\n.*RESP3 multi exec of DEBUG PROTOCOL attrib HANG: no result after 2s\n
const { client, step, batchStep, main } = require('./lib');
// node-redis 6.3.1, 5.12.1 and 6.3.1 with either typeMapping, then
// multi().addCommand(...).execAsPipeline() and .exec() (node-redis-6.3.1/pipeline).
main(async () => {
  for (const [label, lib, opts] of [['', 'node-redis'], ['node-redis-5.12.1 ', 'node-redis-5'], ['node-redis-6.3.1[typeMapping=Map+Buffer] ', 'node-redis', { typeMapping: { MAP: Map, BLOB_STRING: Buffer } }],
    ['node-redis-6.3.1[typeMapping=Set+String] ', 'node-redis', { typeMapping: { SET: Set, DOUBLE: String, BIG_NUMBER: String } }]]) {
    let c = await client(lib, 3, opts);
    console.log('wire: |1\\r\\n$14\\r\\nkey-popularity\\r\\n*2\\r\\n$7\\r\\nkey:123\\r\\n:90\\r\\n$...');
    await step(label + 'RESP3 DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
    c.close();
    c = await client(lib, 3, opts);
    await step(label + 'RESP3 MULTI', c, ['MULTI']);
    await step(label + 'RESP3 DEBUG PROTOCOL attrib queued', c, ['DEBUG', 'PROTOCOL', 'attrib']);
    await step(label + 'RESP3 EXEC', c, ['EXEC']);
    c.close();
  }
  let c = await client('node-redis', 3);
  await batchStep('RESP3 execAsPipeline of two DEBUG PROTOCOL attrib', c, 'pipeline', [['DEBUG', 'PROTOCOL', 'attrib'], ['DEBUG', 'PROTOCOL', 'attrib']]);
  c.close();
  c = await client('node-redis', 3);
  await batchStep('RESP3 multi exec of DEBUG PROTOCOL attrib', c, 'multi', [['DEBUG', 'PROTOCOL', 'attrib']]);
  c.close();
});
