<?php
// repro: phpredis 5.3.7 rawCommand returns true for every simple string (library.c redis_read_variant_line: ZVAL_TRUE), +PONG and +QUEUED as well as +OK, so the text is lost; with Redis::OPT_REPLY_LITERAL it returns the text.
// finds: aggregates/array of an integer, a blob string, an array, a nil and a simple string from Lua [phpredis-5.3.7/resp2]
// finds: attributes/EXEC array whose first element carries an attribute [phpredis-5.3.7/resp2]
// finds: attributes/EXEC array with an attributed element between a map and a set [phpredis-5.3.7/resp2]
// finds: errors/simple error for a wrong number of arguments [phpredis-5.3.7/resp2]
// finds: errors/EXEC array with an error element from INCR on a string [phpredis-5.3.7/resp2]
// finds: errors/EXECABORT error after an error at queue time [phpredis-5.3.7/resp2]
// finds: faults/error inside an EXEC array [phpredis-5.3.7/resp2]
// finds: faults/EXEC nil after WATCH [phpredis-5.3.7/resp2]
// finds: nil-kinds/nil array *-1 from EXEC after a WATCH conflict, null in RESP3 [phpredis-5.3.7/resp2]
// finds: nil-kinds/EXEC array holding nil replies [phpredis-5.3.7/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [phpredis-5.3.7/resp2]
// finds: pubsub/a transaction on one connection while another is subscribed [phpredis-5.3.7/pubsub/resp2]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [phpredis-5.3.7/resp2]
// finds: resp3-types/simple strings +OK and +PONG [phpredis-5.3.7/resp2]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [phpredis-5.3.7/resp2]
// finds: transactions/EXEC array holding a map of fields and a nested array [phpredis-5.3.7/resp2]
// finds: transactions/simple string OK from DISCARD, then an EXEC without MULTI error [phpredis-5.3.7/resp2]
// finds: transactions/nil EXEC after a WATCH conflict, then an array EXEC after UNWATCH [phpredis-5.3.7/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [phpredis-5.3.7/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [phpredis-5.3.7/resp2]
// finds: transactions/pipelined MULTI, commands and EXEC [phpredis-5.3.7/resp2]
// finds: typed-limits/a zero digest queued in a transaction [phpredis-5.3.7/resp2]
// run: php
// expect: (?s)default PING DECODED: true .*default MULTI SET DECODED: true .*default status_reply\('FOUR'\) DECODED: true .*OPT_REPLY_LITERAL PING DECODED: "PONG" .*OPT_REPLY_LITERAL MULTI SET DECODED: "QUEUED"
require __DIR__ . '/lib.php';

foreach (['default' => [], 'OPT_REPLY_LITERAL' => [Redis::OPT_REPLY_LITERAL => true]] as $name => $opts) {
    $r = client($opts);
    echo "wire: +PONG\\r\\n\n";
    step("$name PING", $r, 'PING');
    step("$name MULTI", $r, 'MULTI');
    echo "wire: +QUEUED\\r\\n\n";
    step("$name MULTI SET", $r, 'SET', 'repro:k', 'v');
    step("$name EXEC", $r, 'EXEC');
    echo "wire: +FOUR\\r\\n\n";
    step("$name status_reply('FOUR')", $r, 'EVAL', "return redis.status_reply('FOUR')", '0');
}
