<?php
// repro: phpredis 5.3.7 speaks RESP2 only: rawCommand('HELLO', '3') throws "protocol error, got '%' as reply-type byte" after reading only the map's type byte, and keeps the connection: the next call (ECHO) reads the rest of the map ("7\r\n...") and fails too, so the connection is out of step.
// finds: faults/HELLO 3 through a RESP2 connection [phpredis-5.3.7/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [phpredis-5.3.7/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [phpredis-5.3.7/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [phpredis-5.3.7/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [phpredis-5.3.7/resp2]
// finds: faults/HELLO 3 through a RESP2 connection [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// run: php
// expect: HELLO 3 THROWN: RedisException: "protocol error, got '%' as reply-type byte\\n"\nECHO next THROWN: RedisException: "protocol error, got '7' as reply-type byte\\n"\n
require __DIR__ . '/lib.php';

$r = client();
step('HELLO 3', $r, 'HELLO', '3');
step('ECHO next', $r, 'ECHO', 'next');
