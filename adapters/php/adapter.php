<?php
// respcheck client-view adapter for PHP's phpredis extension.
//
// Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
// stdin/stdout; logs go to stderr. PHP has no threads, so each named case
// connection is a worker process of its own (this script with "worker"):
// one Redis object, connected on its first call, whose calls are
// Redis::rawCommand(...$args), the extension's generic command API, exactly
// as an application would make them. The main process routes requests to the
// workers and their answers to stdout, so a blocked call (BLPOP) holds up
// only its own connection. Values are reported as phpredis returns them;
// nothing is normalised, except that a server error is reported as an error
// whichever way phpredis hands it over: a false whose call left the error in
// getLastError() (codes ERR, WRONGTYPE, NOSCRIPT, ...), or a RedisException
// whose message is that last error (any other code). phpredis 5.x speaks
// RESP2 only (its reader knows - + : $ *), so the library is offered for RESP2
// alone, in two configurations: the defaults, and with the two options that
// change what rawCommand decodes, OPT_REPLY_LITERAL (simple strings as their
// text, not true) and OPT_NULL_MULTIBULK_AS_NULL (*-1 as null, not []).
//
// A third configuration, phpredis-5.3.7/pipeline (the defaults), also
// answers "batch": a pipeline is multi(Redis::PIPELINE), rawCommand(...$args)
// per command, exec(); a transaction multi(), rawCommand(...$args) per
// command, exec(). exec() returns one value per command, as phpredis gives
// them (an error reply is false there: only the last error's text is kept,
// in getLastError()), or false for the batch as a whole (a WATCH conflict),
// or throws: that outcome is then every command's value and the
// transaction's ("exec").
//
// A fourth, phpredis-5.3.7/pubsub (the defaults), also answers "subscribe"
// and "next" through Redis::subscribe / Redis::psubscribe($channels,
// $callback). Those calls block while subscribed: they read and check the
// confirmations themselves, handing none to the user, then call $callback
// for each message or pmessage (library.c redis_subscribe_response), and
// return only when a frame that is neither ends their loop. So a
// (P)SUBSCRIBE's step has no value ("void", answered as the call is made),
// and, as phpredis users do, what the subscribed connection does next is
// decided inside the callback: it delivers its message, then takes the
// connection's next requests, a "next" (a message kept, or the next one:
// the callback returns to let the loop read it) or an (P)UNSUBSCRIBE
// through Redis::unsubscribe / punsubscribe (which read their
// confirmations themselves and return [channel => true]). Nothing else
// has a call there (another command's reply would be read by whichever
// read comes next; a subscribe would start a loop inside the loop): those
// steps are unsupported, as are SSUBSCRIBE (phpredis 5.3.7 has none) and
// every frame phpredis never delivers (confirmations, pongs,
// invalidations). respcheck runs this configuration only on cases where
// a message reaches each subscribed connection right after it subscribes
// (pubsubCallback in runner/clients/pubsub.go): no other step could run.

const BATCH = '/pipeline';
const PUBSUB = '/pubsub';
const PUBSUB_API = 'Redis::subscribe/psubscribe($channels, $callback) (blocking: the rest of the connection\'s steps run inside $callback), Redis::unsubscribe/punsubscribe($channels) from inside it; other steps Redis::rawCommand(...$args)';
const BATCH_API = 'multi(Redis::PIPELINE), rawCommand(...$args)..., exec(); multi(), rawCommand(...$args)..., exec(); other steps Redis::rawCommand(...$args)';

const API = 'Redis::rawCommand(...$args)';

// debian_source names the Debian package a library comes from, with its
// version ("Debian php-redis 5.3.7+4.3.0-3+deb12u1"), or "" when dpkg does
// not know it.
function debian_source(string $pkg): string {
    $v = trim((string) @shell_exec('dpkg-query -W -f=\'${Version}\' ' . escapeshellarg($pkg) . ' 2>/dev/null'));
    return $v === '' ? '' : "Debian $pkg $v";
}

function lib_name(): string { return 'phpredis-' . phpversion('redis'); }

/** The configurations: label suffix => Redis::setOption options. */
function configurations(): array {
    return [
        '' => [],
        '[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]' =>
            [Redis::OPT_REPLY_LITERAL => true, Redis::OPT_NULL_MULTIBULK_AS_NULL => true],
        BATCH => [],
        PUBSUB => [],
    ];
}

function log_line(string $s): void { fwrite(STDERR, $s . "\n"); }

function out_line(array $obj): void {
    $line = json_encode($obj, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE);
    if ($line === false) {
        $line = json_encode(['id' => $obj['id'] ?? 0, 'error' => 'json_encode: ' . json_last_error_msg()]);
    }
    fwrite(STDOUT, $line . "\n");
    fflush(STDOUT);
}

function is_utf8(string $s): bool { return preg_match('//u', $s) === 1; }

/** native describes a phpredis value without normalising it. */
function native($v, int $depth = 0): array {
    $t = get_debug_type($v);
    if ($depth > 64) return ['kind' => 'other', 'type' => $t, 'text' => '<too deep>'];
    if ($v === null) return ['kind' => 'nil', 'type' => 'null'];
    if (is_bool($v)) return ['kind' => 'bool', 'type' => 'bool', 'text' => $v ? 'true' : 'false'];
    if (is_int($v)) return ['kind' => 'int', 'type' => 'int', 'text' => (string)$v];
    if (is_float($v)) return ['kind' => 'float', 'type' => 'float', 'text' => var_export($v, true)];
    if (is_string($v)) {
        return is_utf8($v) ? ['kind' => 'string', 'type' => 'string', 'text' => $v]
            : ['kind' => 'string', 'type' => 'string', 'b64' => base64_encode($v)];
    }
    if (is_array($v)) {
        if (array_is_list($v)) {
            return ['kind' => 'list', 'type' => 'array', 'elems' => array_map(fn($e) => native($e, $depth + 1), $v)];
        }
        $pairs = [];
        foreach ($v as $k => $x) $pairs[] = [native($k, $depth + 1), native($x, $depth + 1)];
        return ['kind' => 'map', 'type' => 'array', 'pairs' => $pairs];
    }
    if ($v instanceof Throwable) {
        return ['kind' => 'exception', 'type' => $t, 'error' => ['class' => $t, 'message' => $v->getMessage()]];
    }
    return ['kind' => 'other', 'type' => $t, 'text' => var_export($v, true)];
}

// ---- worker: one connection ------------------------------------------------------

/** outcome is a call's value: a false that left an error in getLastError() is that error. */
function outcome(Redis $r, $v): array {
    $err = $r->getLastError();
    if ($v === false && $err !== null) {
        return ['kind' => 'error', 'type' => 'false (getLastError())',
            'error' => ['class' => 'getLastError()', 'message' => $err]];
    }
    return native($v);
}

/** batch runs cmds through multi(Redis::PIPELINE) or multi(), then exec(). */
function batch(Redis $r, string $mode, array $cmds): array {
    $r->multi($mode === 'multi' ? Redis::MULTI : Redis::PIPELINE);
    foreach ($cmds as $args) $r->rawCommand(...$args);
    $res = $r->exec();
    if (is_array($res) && count($res) === count($cmds)) {
        return ['values' => array_map(fn($v) => native($v), $res)];
    }
    $whole = outcome($r, $res);
    $out = ['values' => array_fill(0, count($cmds), $whole)];
    if ($mode === 'multi') $out['exec'] = $whole;
    return $out;
}

function worker(string $host, int $port, string $config): void {
    $r = null;
    while (($line = fgets(STDIN)) !== false) {
        $req = json_decode($line, true);
        if (!is_array($req)) continue;
        // The router reuses an idle worker for another session's
        // connection (see Router::idle): "unbind" closes the connection as
        // the session ends, "bind" names the next one's server.
        if (($req['op'] ?? '') === 'unbind' || ($req['op'] ?? '') === 'bind') {
            if ($r !== null) $r->close();
            $r = null;
            if ($req['op'] === 'bind') { $host = $req['host']; $port = (int)$req['port']; }
            continue;
        }
        if (isset($req['op'])) {
            $r ??= connect_worker($host, $port, $config);
            Subscriber::outside($r, $req);
            continue;
        }
        $mode = $req['mode'] ?? null;
        $cmds = array_map(fn($c) => array_map('base64_decode', $c), $mode !== null ? $req['cmds'] : [$req['args']]);
        try {
            $r ??= connect_worker($host, $port, $config);
            $r->clearLastError();
            if ($mode !== null) {
                out_line(['id' => $req['id']] + batch($r, $mode, $cmds));
                continue;
            }
            $value = outcome($r, $r->rawCommand(...$cmds[0]));
        } catch (RedisException $e) {
            // phpredis raises a server error whose code is not ERR (nor
            // WRONGTYPE, NOSCRIPT, ...) as a RedisException, after keeping
            // it as the last error; any other RedisException (a protocol
            // or connection error) leaves no last error.
            $err = $r !== null ? $r->getLastError() : null;
            if ($err !== null && $err === $e->getMessage()) {
                $value = ['kind' => 'error', 'type' => 'RedisException',
                    'error' => ['class' => 'RedisException', 'message' => $err]];
            } else {
                log_line('RedisException: ' . $e->getMessage());
                $value = native($e);
            }
        } catch (Throwable $e) {
            log_line(get_class($e) . ': ' . $e->getMessage());
            $value = native($e);
        }
        if ($mode !== null) {
            // The batch threw: that is every command's value.
            $out = ['id' => $req['id'], 'values' => array_fill(0, count($cmds), $value)];
            if ($mode === 'multi') $out['exec'] = $value;
            out_line($out);
            continue;
        }
        out_line(['id' => $req['id'], 'value' => $value]);
    }
}

/** connect_worker is a worker's Redis, connected as an application would. */
function connect_worker(string $host, int $port, string $config): Redis {
    $c = new Redis();
    $c->connect($host, $port, 5.0);
    // respcheck enforces the deadline (hang): no read timeout.
    $c->setOption(Redis::OPT_READ_TIMEOUT, -1);
    foreach (configurations()[$config] as $opt => $val) $c->setOption($opt, $val);
    return $c;
}

/** unsupported is the Native of a step the library has no call for. */
function unsupported(string $why): array {
    return ['kind' => 'unsupported', 'type' => 'unsupported', 'error' => ['class' => 'unsupported', 'message' => $why]];
}

/** message is a delivered item: field name => value, in order. */
function message(string $type, array $fields): array {
    $pairs = [];
    foreach ($fields as $k => $v) $pairs[] = [['kind' => 'string', 'type' => 'field', 'text' => $k], native($v)];
    return ['kind' => 'message', 'type' => $type, 'pairs' => $pairs];
}

/** Subscriber is the /pubsub configuration's worker side (see the file's comment). */
final class Subscriber {
    /** @var array[] messages delivered and not yet asked for */
    private static array $items = [];
    /** the id of the "next" waiting for the callback's next message, or null */
    private static ?int $pending = null;

    /** outside runs a "subscribe" or "next" while no subscribe() runs. */
    public static function outside(Redis $r, array $req): void {
        $id = $req['id'];
        if ($req['op'] === 'next') {
            $v = array_shift(self::$items) ?? unsupported('phpredis delivers messages inside subscribe()\'s callback only, and none runs');
            out_line(['id' => $id, 'value' => $v]);
            return;
        }
        $args = array_map('base64_decode', $req['args']);
        $name = strtolower(array_shift($args));
        if ($name !== 'subscribe' && $name !== 'psubscribe') {
            out_line(['id' => $id, 'value' => self::unsubscribe($r, $name, $args)]);
            return;
        }
        out_line(['id' => $id, 'value' => ['kind' => 'void', 'type' => 'void', 'error' => ['class' => 'void',
            'message' => "Redis::$name() hands the user no confirmation: it reads and checks them itself, then blocks calling its callback per message (library.c redis_subscribe_response)"]]]);
        try {
            $ret = native($r->$name($args, fn(Redis $redis, ...$a) => self::callback($redis, $name, $a)));
        } catch (Throwable $e) {
            log_line("$name: " . get_class($e) . ': ' . $e->getMessage());
            $ret = native($e);
        }
        // The loop ended (a frame that is not a message): a "next" left
        // waiting gets what the call returned instead.
        if (self::$pending !== null) {
            out_line(['id' => self::$pending, 'value' => $ret]);
            self::$pending = null;
        }
    }

    /** unsubscribe sends an (P)UNSUBSCRIBE (or answers why not): the channels phpredis returns, the first as the item. */
    private static function unsubscribe(Redis $r, string $name, array $channels): array {
        if ($name !== 'unsubscribe' && $name !== 'punsubscribe') {
            return unsupported('phpredis ' . phpversion('redis') . " has no $name()");
        }
        try {
            $v = $r->$name($channels);
        } catch (Throwable $e) {
            return native($e);
        }
        if (!is_array($v) || count($v) === 0) return native($v);
        return message("array (Redis::$name: [channel => true])", ['channel' => (string) array_key_first($v)]);
    }

    /** callback is subscribe()'s callback: it delivers the message, then serves the connection's requests. */
    private static function callback(Redis $r, string $how, array $a): void {
        $item = count($a) === 3
            ? message('psubscribe callback ($redis, $pattern, $channel, $message)', ['kind' => 'pmessage', 'pattern' => $a[0], 'channel' => $a[1], 'payload' => $a[2]])
            : message('subscribe callback ($redis, $channel, $message)', ['kind' => 'message', 'channel' => $a[0], 'payload' => $a[1]]);
        if (self::$pending !== null) {
            out_line(['id' => self::$pending, 'value' => $item]);
            self::$pending = null;
        } else {
            self::$items[] = $item;
        }
        while (($line = fgets(STDIN)) !== false) {
            $req = json_decode($line, true);
            if (!is_array($req)) continue;
            $id = $req['id'];
            if (($req['op'] ?? '') === 'next') {
                if (self::$items === []) {
                    self::$pending = $id; // the loop reads the next message
                    return;
                }
                out_line(['id' => $id, 'value' => array_shift(self::$items)]);
            } elseif (($req['op'] ?? '') === 'subscribe') {
                $args = array_map('base64_decode', $req['args']);
                $name = strtolower(array_shift($args));
                $v = $name === 'subscribe' || $name === 'psubscribe'
                    ? unsupported("Redis::$name() inside the callback would start a second blocking loop inside the first")
                    : self::unsubscribe($r, $name, $args);
                out_line(['id' => $id, 'value' => $v]);
            } else {
                out_line(['id' => $id, 'value' => unsupported('inside subscribe()\'s callback phpredis has no call for a command: '
                    . 'its reply would be read by whichever read comes next (the loop reads only messages)')]);
            }
        }
        exit(0); // the session ended
    }
}

// ---- main: routes requests to workers ------------------------------------------------

final class Router {
    /** @var array<string, array{addr: string}> */
    private array $sessions = [];
    /** @var array<string, array> worker by "session\0conn" */
    private array $workers = [];
    private string $inBuf = '';
    private int $seq = 0;

    /** @var array<string, string[]> keys of idle workers by configuration */
    private array $idle = [];

    /** IDLE_MAX is how many idle workers a configuration keeps for reuse. */
    private const IDLE_MAX = 4;

    /**
     * worker returns the key of a worker for a session's connection: an
     * idle one of its configuration, bound to the session's server, or a
     * new process (starting PHP took most of a short case's time).
     */
    private function worker(array $s, string $key): string {
        [$host, $port] = self::hostPort($s['addr']);
        $this->idle[$s['config']] ??= [];
        while (($old = array_pop($this->idle[$s['config']])) !== null) {
            if (!isset($this->workers[$old])) continue; // it exited meanwhile
            $this->workers[$key] = $this->workers[$old];
            unset($this->workers[$old]);
            fwrite($this->workers[$key]['in'], json_encode(['op' => 'bind', 'host' => $host, 'port' => $port]) . "\n");
            return $key;
        }
        $cmd = [PHP_BINARY, __FILE__, 'worker', $host, (string)$port, $s['config']];
        $p = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        if ($p === false) throw new RuntimeException('proc_open failed');
        stream_set_blocking($pipes[1], false);
        $this->workers[$key] = ['proc' => $p, 'in' => $pipes[0], 'out' => $pipes[1], 'buf' => '', 'pending' => [], 'config' => $s['config']];
        return $key;
    }

    /** hostPort splits "host:port" at its last colon. */
    private static function hostPort(string $addr): array {
        $i = strrpos($addr, ':');
        return [substr($addr, 0, $i), (int)substr($addr, $i + 1)];
    }

    private function handle(array $req): void {
        $id = $req['id'] ?? 0;
        switch ($req['op'] ?? '') {
            case 'hello':
                $libs = [];
                foreach (array_keys(configurations()) as $suffix) {
                    if ($suffix === PUBSUB) {
                        $libs[] = ['name' => lib_name() . $suffix, 'version' => phpversion('redis'), 'protos' => [2], 'pubsub' => 'callback',
                            'api' => PUBSUB_API, 'source' => debian_source('php-redis')];
                        continue;
                    }
                    $libs[] = $suffix === BATCH
                        ? ['name' => lib_name() . $suffix, 'version' => phpversion('redis'), 'protos' => [2], 'batch' => true, 'api' => BATCH_API,
                           'source' => debian_source('php-redis')]
                        : ['name' => lib_name() . $suffix, 'version' => phpversion('redis'), 'protos' => [2], 'api' => API,
                           'source' => debian_source('php-redis')];
                }
                out_line(['id' => $id, 'libraries' => $libs]);
                return;
            case 'open':
                $config = substr($req['lib'] ?? '', strlen(lib_name()));
                if (!str_starts_with($req['lib'] ?? '', lib_name()) || !array_key_exists($config, configurations())) {
                    out_line(['id' => $id, 'error' => 'unknown library ' . ($req['lib'] ?? '')]);
                    return;
                }
                if (($req['proto'] ?? 2) !== 2) { out_line(['id' => $id, 'error' => 'phpredis 5.x speaks RESP2 only']); return; }
                $this->sessions[$req['session']] = ['addr' => $req['addr'], 'config' => $config];
                out_line(['id' => $id, 'ok' => true]);
                return;
            case 'subscribe':
            case 'next':
            case 'batch':
            case 'do':
                $s = $this->sessions[$req['session'] ?? ''] ?? null;
                if ($s === null) { out_line(['id' => $id, 'error' => 'no session']); return; }
                $fwd = ['id' => $id, 'args' => $req['args'] ?? []];
                if ($req['op'] === 'subscribe' || $req['op'] === 'next') {
                    if ($s['config'] !== PUBSUB) { out_line(['id' => $id, 'error' => 'library has no subscribe API']); return; }
                    if ($req['op'] === 'next' && !in_array($req['kind'] ?? '', ['message', 'pmessage'], true)) {
                        // Answered here: the worker may be inside subscribe().
                        out_line(['id' => $id, 'value' => unsupported('phpredis ' . phpversion('redis') . ' delivers messages and pmessages only '
                            . '(library.c redis_subscribe_response: the confirmations are read inside subscribe(), other frames end its loop)')]);
                        return;
                    }
                    $fwd = ['id' => $id, 'op' => $req['op'], 'args' => $req['args'] ?? [], 'kind' => $req['kind'] ?? ''];
                }
                if ($req['op'] === 'batch') {
                    if ($s['config'] !== BATCH) { out_line(['id' => $id, 'error' => 'library has no batch op']); return; }
                    if (!in_array($req['mode'] ?? '', ['pipeline', 'multi'], true)) { out_line(['id' => $id, 'error' => 'unknown batch mode']); return; }
                    $fwd = ['id' => $id, 'mode' => $req['mode'], 'cmds' => $req['cmds']];
                }
                $key = $req['session'] . "\0" . ($req['conn'] ?? 'default');
                if (!isset($this->workers[$key])) $this->worker($s, $key);
                $w = &$this->workers[$key];
                $w['pending'][$id] = true;
                fwrite($w['in'], json_encode($fwd) . "\n");
                fflush($w['in']);
                return;
            case 'close':
                $sid = $req['session'] ?? '';
                unset($this->sessions[$sid]);
                foreach (array_keys($this->workers) as $key) {
                    if (str_starts_with($key, $sid . "\0")) $this->stop($key);
                }
                out_line(['id' => $id, 'ok' => true]);
                return;
        }
        out_line(['id' => $id, 'error' => 'unknown op ' . ($req['op'] ?? '')]);
    }

    /**
     * stop ends a closed session's worker: one with no call in flight (a
     * call that hung leaves its process busy) and not subscribed is kept
     * idle for another session, its connection closed; any other has its
     * stdin closed: it ends after its queued calls, whose answers are
     * still read.
     */
    private function stop(string $key): void {
        $w = $this->workers[$key];
        $idle = &$this->idle[$w['config']];
        $idle ??= [];
        if ($w['config'] !== PUBSUB && $w['pending'] === [] && $w['buf'] === '' && count($idle) < self::IDLE_MAX) {
            fwrite($w['in'], json_encode(['op' => 'unbind']) . "\n");
            $k = 'idle:' . (++$this->seq);
            unset($this->workers[$key]);
            $this->workers[$k] = $w;
            $idle[] = $k;
            return;
        }
        unset($this->workers[$key]);
        fclose($w['in']);
        $w['in'] = null;
        // A /pubsub worker may be blocked inside subscribe(), reading no
        // stdin until a message comes: it is ended.
        if ($w['config'] === PUBSUB) proc_terminate($w['proc']);
        $this->workers['closed:' . (++$this->seq)] = $w;
    }

    /** drain forwards a worker's complete lines; at its end, answers its pending calls. */
    private function drain(string $key): void {
        $w = &$this->workers[$key];
        $data = fread($w['out'], 1 << 16);
        if ($data !== false && $data !== '') {
            $w['buf'] .= $data;
            while (($i = strpos($w['buf'], "\n")) !== false) {
                $line = substr($w['buf'], 0, $i);
                $w['buf'] = substr($w['buf'], $i + 1);
                $resp = json_decode($line, true);
                if (is_array($resp)) unset($w['pending'][$resp['id']]);
                fwrite(STDOUT, $line . "\n");
            }
            fflush(STDOUT);
            return;
        }
        if (!feof($w['out'])) return;
        foreach (array_keys($w['pending']) as $id) {
            out_line(['id' => $id, 'value' => ['kind' => 'exception', 'type' => 'worker',
                'error' => ['class' => 'worker', 'message' => 'the connection\'s PHP process exited']]]);
        }
        fclose($w['out']);
        if ($w['in'] !== null) fclose($w['in']);
        proc_close($w['proc']);
        unset($w);
        unset($this->workers[$key]);
    }

    private function readStdin(): bool {
        $data = fread(STDIN, 1 << 16);
        if ($data === false || ($data === '' && feof(STDIN))) return false;
        $this->inBuf .= $data;
        while (($i = strpos($this->inBuf, "\n")) !== false) {
            $line = trim(substr($this->inBuf, 0, $i));
            $this->inBuf = substr($this->inBuf, $i + 1);
            if ($line === '') continue;
            $req = json_decode($line, true);
            if (!is_array($req)) { log_line('bad request: ' . substr($line, 0, 200)); continue; }
            try {
                $this->handle($req);
            } catch (Throwable $e) {
                log_line(get_class($e) . ': ' . $e->getMessage());
                out_line(['id' => $req['id'] ?? 0, 'error' => get_class($e) . ': ' . $e->getMessage()]);
            }
        }
        return true;
    }

    public function run(): void {
        stream_set_blocking(STDIN, false);
        for (;;) {
            $read = [STDIN];
            foreach ($this->workers as $w) $read[] = $w['out'];
            $none = null;
            if (stream_select($read, $none, $none, null) === false) return;
            foreach ($read as $s) {
                if ($s === STDIN) {
                    if (!$this->readStdin()) return;
                    continue;
                }
                foreach ($this->workers as $key => $w) {
                    if ($w['out'] === $s) { $this->drain($key); break; }
                }
            }
        }
    }
}

if (($argv[1] ?? '') === 'worker') {
    worker($argv[2], (int)$argv[3], $argv[4] ?? '');
} else {
    (new Router())->run();
}
