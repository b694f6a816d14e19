<?php
// repro: phpredis 5.3.7 Redis::subscribe hands its callback the payload of a message that is an array (an invalidation through CLIENT TRACKING ... REDIRECT to a connection subscribed to __redis__:invalidate) as the string "*1" (library.c redis_mbulk_reply_loop reads the element with redis_sock_read, which returns a multi-bulk header line as text), then reads the array's element as the next frame, which ends the subscribe loop: subscribe() returns null and the second message is never delivered.
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [phpredis-5.3.7/pubsub/resp2]
// run: php
// expect: (?s)CALLBACK: \["__redis__:invalidate","\*1"\]\nSUBSCRIBE RETURNED: null\n
require_once __DIR__ . '/lib.php';

$sub = client();
$t = client();
$id = $sub->rawCommand('CLIENT', 'ID');
$t->rawCommand('CLIENT', 'TRACKING', 'on', 'REDIRECT', (string)$id);
$t->rawCommand('MGET', 'repro:a', 'repro:b');
// Both invalidations are written to $sub once it subscribes: the first
// right away, the second after the callback ran.
// (The writer is a child process with a connection of its own; it ends
// with SIGKILL, so that no destructor touches the inherited connections.)
$pid = pcntl_fork();
if ($pid === 0) {
    $w = client();
    usleep(200000);
    $w->rawCommand('SET', 'repro:a', 'x');
    usleep(200000);
    $w->rawCommand('SET', 'repro:b', 'y');
    posix_kill(posix_getpid(), SIGKILL);
}
try {
    $ret = $sub->subscribe(['__redis__:invalidate'], function (Redis $r, string $chan, $msg) {
        echo 'CALLBACK: ', json_encode([$chan, $msg], JSON_UNESCAPED_SLASHES), "\n";
    });
    echo 'SUBSCRIBE RETURNED: ', json_encode($ret), "\n";
} catch (Throwable $e) {
    echo 'SUBSCRIBE THROWN: ', get_class($e), ': ', json_encode($e->getMessage()), "\n";
}
pcntl_waitpid($pid, $status);
