package clients

import "github.com/respcheck/respcheck/resp"

// phpredisSource is the file the phpredis contract's claims come from.
const phpredisSource = "phpredis 5.3.7 (Debian bookworm php-redis) library.c"

func addPHPContract(m map[string]*contract) {
	m["phpredis"] = withConversions(newContract("phpredis", []string{
		"RESP2 only: redis_read_reply_type knows - + : $ * (" + phpredisSource + "); any other type byte is \"protocol error, got '%' as reply-type byte\"",
		"rawCommand returns true for every simple string (redis_read_variant_line: ZVAL_TRUE): true is acceptable for +OK only, the text of any other status is lost",
		"a server error is false with the text in getLastError(), or a RedisException when its code is not ERR, WRONGTYPE, NOSCRIPT, NOQUORUM, NOGOODSLAVE, BUSYGROUP or NOGROUP " +
			"(redis_read_variant_line, redis_error_throw); the adapter reports both as the error",
	}, map[resp.Kind]map[string]Verdict{
		resp.SimpleString: {"bool": Match},
	}), &conversion{Name: "nil blob string → false",
		Source: phpredisSource + " redis_read_variant_bulk: a bulk that reads as NULL ($-1) is ZVAL_FALSE",
		apply:  nilAsFalse})
}

// nilAsFalse: a nil blob string decoded as the boolean false.
func nilAsFalse(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if v.Kind != resp.NilBlobString || n.Kind != "bool" || text(n) != "false" {
		return 0, false
	}
	return Match, true
}

// phpredisWatch: exec() gives false for the nil EXEC of a transaction
// aborted by WATCH (shown by testdata/clients/repro/phpredis-batch.php
// on redis-8.6.3).
var phpredisWatch = &conversion{Name: "nil EXEC (a WATCH conflict) → false from exec()",
	Source: "phpredis 5.3.7 exec() after a WATCH conflict, testdata/clients/repro/phpredis-batch.php",
	apply: func(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
		if v.Kind != resp.NilArray || n.Kind != "bool" || text(n) != "false" {
			return 0, false
		}
		return Match, true
	}}
