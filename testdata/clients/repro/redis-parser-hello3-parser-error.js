// repro: iovalkey 0.4.0 and ioredis 5.11.1 (RESP2 only, both on redis-parser 3.0.0) cannot parse the RESP3 map HELLO 3 answers ("%7\r\n..."): a ParserError 'got "%" as reply type byte' and the connection is dropped, so the next call fails too.
// finds: faults/HELLO 3 through a RESP2 connection [iovalkey-0.4.0/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [iovalkey-0.4.0/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [iovalkey-0.4.0/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [iovalkey-0.4.0/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [iovalkey-0.4.0/resp2]
// finds: faults/HELLO 3 through a RESP2 connection [ioredis-5.11.1/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [ioredis-5.11.1/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [ioredis-5.11.1/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [ioredis-5.11.1/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [ioredis-5.11.1/resp2]
// run: node
// expect: (?s)RESP2 HELLO 3 THROWN: ParserError: Protocol error, got "%" as reply type byte.*RESP2 ECHO next (THROWN|HANG).*ioredis-5.11.1 RESP2 HELLO 3 THROWN: ParserError: Protocol error, got "%" as reply type byte.*ioredis-5.11.1 RESP2 ECHO next (THROWN|HANG)
const { client, step, reportUncaught, main } = require('./lib');
reportUncaught();
// iovalkey, then ioredis 5.11.1: both read replies with redis-parser 3.0.0.
main(async () => {
  for (const [label, lib] of [['', 'iovalkey'], ['ioredis-5.11.1 ', 'ioredis-5']]) {
    const c = await client(lib, 2);
    console.log('wire: %7\\r\\n$6\\r\\nserver\\r\\n$5\\r\\nredis\\r\\n...');
    await step(label + 'RESP2 HELLO 3', c, ['HELLO', '3']);
    await step(label + 'RESP2 ECHO next', c, ['ECHO', 'next']);
    c.close();
  }
});
