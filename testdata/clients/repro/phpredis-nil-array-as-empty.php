<?php
// repro: phpredis 5.3.7 rawCommand returns an empty array for the nil array *-1 (BLPOP timing out, LPOP with a count on a missing key), so it looks like an empty list; with Redis::OPT_NULL_MULTIBULK_AS_NULL it returns null.
// finds: nil-kinds/nil array *-1 from BLPOP timing out, null in RESP3 [phpredis-5.3.7/resp2]
// finds: nil-kinds/nil array *-1 from LPOP with a count on a missing key, null in RESP3 [phpredis-5.3.7/resp2]
// run: php
// expect: (?s)default BLPOP timeout DECODED: \[\] .*default LPOP count DECODED: \[\] .*OPT_NULL_MULTIBULK_AS_NULL BLPOP timeout DECODED: null
require __DIR__ . '/lib.php';

foreach (['default' => [], 'OPT_NULL_MULTIBULK_AS_NULL' => [Redis::OPT_NULL_MULTIBULK_AS_NULL => true]] as $name => $opts) {
    $r = client($opts);
    echo "wire: *-1\\r\\n\n";
    step("$name BLPOP timeout", $r, 'BLPOP', 'repro:missing', '0.05');
    step("$name LPOP count", $r, 'LPOP', 'repro:missing', '3');
}
