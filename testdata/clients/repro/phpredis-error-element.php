<?php
// repro: phpredis 5.3.7 rawCommand turns an error element of an array into false (its text only in getLastError(), the last one), and throws a RedisException for the whole reply when the element's code is not ERR (library.c redis_read_variant_line, redis_error_throw); an error with an empty text ("-\r\n") is false with no last error at all. The same with OPT_REPLY_LITERAL and OPT_NULL_MULTIBULK_AS_NULL. In a pipeline, exec() throws that RedisException for the whole pipeline, losing the other replies (TTL's).
// finds: errors/array with an error element from a Lua table [phpredis-5.3.7/resp2]
// finds: errors/nested array with an error element two levels down [phpredis-5.3.7/resp2]
// finds: errors/simple errors with an empty text and with an ERR code and no text [phpredis-5.3.7/resp2]
// finds: errors/EXEC array with an error element from INCR on a string [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: errors/array with an error element from a Lua table [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: errors/nested array with an error element two levels down [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: errors/simple errors with an empty text and with an ERR code and no text [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: faults/error inside an EXEC array [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: generated/array that starts with a LOADING error, then a blob string [phpredis-5.3.7/resp2]
// finds: generated/array that starts with a LOADING error, then a blob string [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: generated/array that starts with a MOVED error, then an integer [phpredis-5.3.7/resp2]
// finds: generated/array that starts with a MOVED error, then an integer [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: generated/array of one READONLY error from Lua [phpredis-5.3.7/resp2]
// finds: generated/array of one READONLY error from Lua [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [phpredis-5.3.7/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [phpredis-5.3.7/pipeline/resp2]
// finds: generated/pipeline of an array holding a LOADING error, then TTL [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// run: php
// expect: (?s)default ERR element DECODED: \[1,false\] getLastError="ERR boom".*default MYERR element THROWN: RedisException: "MYERR deep".*default empty error DECODED: false getLastError=null.*literal ERR element DECODED: \[1,false\].*pipeline LOADING, TTL THROWN: RedisException: "LOADING loading"
require __DIR__ . '/lib.php';

$opts = [Redis::OPT_REPLY_LITERAL => true, Redis::OPT_NULL_MULTIBULK_AS_NULL => true];
foreach (['default' => [], 'literal' => $opts] as $name => $o) {
    $r = client($o);
    echo "wire: *2\\r\\n:1\\r\\n-ERR boom\\r\\n\n";
    step("$name ERR element", $r, 'EVAL', "return {1, redis.error_reply('boom')}", '0');
    echo "wire: *2\\r\\n:1\\r\\n*2\\r\\n:2\\r\\n-MYERR deep\\r\\n\n";
    step("$name MYERR element", $r, 'EVAL', "return {1,{2,redis.error_reply('MYERR deep')}}", '0');
    echo "wire: -\\r\\n\n";
    step("$name empty error", $r, 'EVAL', "return {err=''}", '0');
}
// The LOADING array in a pipeline (multi(Redis::PIPELINE), rawCommand, exec()), then TTL.
$r = client();
echo "wire: *2\\r\\n-LOADING loading\\r\\n\$5\\r\\nafter\\r\\n then :-2\\r\\n (pipelined)\n";
try {
    $r->multi(Redis::PIPELINE);
    $r->rawCommand('EVAL', "return {{err='LOADING loading'}, 'after'}", '0');
    $r->rawCommand('TTL', 'repro:missing');
    $v = $r->exec();
    echo 'pipeline LOADING, TTL DECODED: ', json_encode($v), "\n";
} catch (Throwable $e) {
    echo 'pipeline LOADING, TTL THROWN: ', get_class($e), ': ', json_encode($e->getMessage()), "\n";
}
