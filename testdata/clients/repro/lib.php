<?php
// Shared by the phpredis repros: php FILE.php HOST:PORT (see README.md).
[$HOST, $PORT] = explode(':', ($argv[1] ?? '') . ':');
if ($PORT === '') { echo "usage: php FILE.php HOST:PORT\n"; exit(2); }

/** client connects a Redis object, with setOption options. */
function client(array $opts = []): Redis {
    global $HOST, $PORT;
    $r = new Redis();
    $r->connect($HOST, (int)$PORT, 2.0);
    $r->setOption(Redis::OPT_READ_TIMEOUT, 2.0);
    foreach ($opts as $k => $v) $r->setOption($k, $v);
    return $r;
}

/** step is one rawCommand (2 s read timeout); prints DECODED with getLastError(), or THROWN. */
function step(string $label, Redis $r, ...$args) {
    $r->clearLastError();
    try {
        $v = $r->rawCommand(...$args);
        echo $label, ' DECODED: ', json_encode($v, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE),
            ' getLastError=', json_encode($r->getLastError()), "\n";
        return $v;
    } catch (Throwable $e) {
        echo $label, ' THROWN: ', get_class($e), ': ', json_encode($e->getMessage()), "\n";
        return null;
    }
}
