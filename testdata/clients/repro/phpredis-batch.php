<?php
// repro: phpredis 5.3.7's batch API, exec() after multi(Redis::PIPELINE) or multi() and rawCommand per command: an error reply is false in exec()'s array (its text only in getLastError(), the last one), a +QUEUED pipelined by hand is true, the nil array *-1 of LPOP with a count is an empty array, a transaction aborted by WATCH is false, and a transaction with an unknown command at queue time never returns: exec() waits for a reply the server will not send (here the 2 s read timeout ends it with a RedisException).
// finds: errors/error between two pipelined replies [phpredis-5.3.7/pipeline/resp2]
// finds: errors/EXEC array with an error element from INCR on a string [phpredis-5.3.7/pipeline/resp2]
// finds: faults/error inside an EXEC array [phpredis-5.3.7/pipeline/resp2]
// finds: transactions/EXEC array with a WRONGTYPE error between two replies [phpredis-5.3.7/pipeline/resp2]
// finds: transactions/pipelined MULTI, commands and EXEC [phpredis-5.3.7/pipeline/resp2]
// finds: nil-kinds/EXEC array holding nil replies [phpredis-5.3.7/pipeline/resp2]
// finds: errors/EXECABORT error after an error at queue time [phpredis-5.3.7/pipeline/resp2]
// finds: transactions/EXECABORT error after an unknown command at queue time [phpredis-5.3.7/pipeline/resp2]
// run: php
// expect: (?s)pipeline SET, INCR on it, GET EXEC: \[true,false,"text"\] getLastError="ERR value is not an integer or out of range".*multi SET, INCR on it, GET EXEC: \[true,false,"text"\].*pipeline MULTI, INCR, INCR, EXEC EXEC: \[true,true,true,\[1,2\]\].*multi GET missing, LPOP missing 2 EXEC: \[false,\[\]\].*multi after a WATCH conflict EXEC: false getLastError=null.*multi GET, NOPE THROWN: RedisException
require __DIR__ . '/lib.php';

/** batch runs cmds through multi($mode), rawCommand each, exec(); prints what exec() gave or threw. */
function batch(string $label, Redis $r, int $mode, array $cmds): void {
    $r->clearLastError();
    try {
        $r->multi($mode);
        foreach ($cmds as $args) $r->rawCommand(...$args);
        $v = $r->exec();
        echo $label, ' EXEC: ', json_encode($v), ' getLastError=', json_encode($r->getLastError()), "\n";
    } catch (Throwable $e) {
        echo $label, ' THROWN: ', get_class($e), ': ', json_encode($e->getMessage()), "\n";
    }
}

$r = client();
$k = 'repro:php:batch';
$r->rawCommand('DEL', $k, "$k:n");
batch('pipeline SET, INCR on it, GET', $r, Redis::PIPELINE, [['SET', $k, 'text'], ['INCR', $k], ['GET', $k]]);
batch('multi SET, INCR on it, GET', $r, Redis::MULTI, [['SET', $k, 'text'], ['INCR', $k], ['GET', $k]]);
batch('pipeline MULTI, INCR, INCR, EXEC', $r, Redis::PIPELINE, [['MULTI'], ['INCR', "$k:n"], ['INCR', "$k:n"], ['EXEC']]);
batch('multi GET missing, LPOP missing 2', $r, Redis::MULTI, [['GET', "$k:missing"], ['LPOP', "$k:missing", '2']]);
$other = client();
$r->watch($k);
$other->rawCommand('SET', $k, 'changed');
batch('multi after a WATCH conflict', $r, Redis::MULTI, [['GET', $k]]);
batch('multi GET, NOPE', $r, Redis::MULTI, [['GET', $k], ['NOPE', $k]]);
$other->rawCommand('DEL', $k, "$k:n");
