<?php
// repro: phpredis 5.3.7 reads a simple string into a 4,096-byte line buffer: one of 4,094 bytes or more ("+aaaa...\r\n" from EVAL's status_reply) is cut there, the call returns what it read (true: a status) and the rest of the line is read as the next replies ("protocol error, got 'a' as reply-type byte"). 4,093 bytes decode. With OPT_REPLY_LITERAL the cut status comes back as its first 4,093 bytes. In an array of two ("*2\r\n+aaaa...\r\n:7\r\n") the array comes back with one element. Found by respcheck clients --generate (runner/replies).
// finds: generated/simple string of 4,096 bytes from Lua's status_reply [phpredis-5.3.7/resp2]
// finds: generated/array of a simple string of 4,096 bytes and an integer from Lua [phpredis-5.3.7/resp2]
// finds: generated/simple string of 4,096 bytes from Lua's status_reply [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: generated/array of a simple string of 4,096 bytes and an integer from Lua [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// run: php
// expect: (?s)status 4093 DECODED: true .*after 4093 DECODED: "next".*status 4096 DECODED: true .*after 4096 THROWN: RedisException: "protocol error.*array DECODED: \[true\] .*after array THROWN: RedisException: "protocol error.*literal 4096 DECODED: 4093 bytes of a\n.*literal after THROWN: RedisException: "protocol error
require __DIR__ . '/lib.php';

foreach ([4093, 4096] as $n) {
    $r = client();
    echo "wire: +", $n, " bytes of a\\r\\n\n";
    step("status $n", $r, 'EVAL', "return redis.status_reply(string.rep('a',$n))", '0');
    step("after $n", $r, 'ECHO', 'next');
    step("then $n", $r, 'ECHO', 'then');
}
$r = client();
echo "wire: *2\\r\\n+(4,096 bytes of a)\\r\\n:7\\r\\n\n";
step('array', $r, 'EVAL', "return {redis.status_reply(string.rep('a',4096)), 7}", '0');
step('after array', $r, 'ECHO', 'next');
$r = client([Redis::OPT_REPLY_LITERAL => true, Redis::OPT_NULL_MULTIBULK_AS_NULL => true]);
echo "wire: +4096 bytes of a\\r\\n (OPT_REPLY_LITERAL)\n";
$v = $r->rawCommand('EVAL', "return redis.status_reply(string.rep('a',4096))", '0');
echo 'literal 4096 DECODED: ', is_string($v) ? strlen($v) . ' bytes of a' : json_encode($v), "\n";
step('literal after', $r, 'ECHO', 'next');
