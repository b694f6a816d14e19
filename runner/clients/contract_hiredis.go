package clients

import (
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// hiredisSource is where the hiredis contract's claims come from.
const hiredisSource = "hiredis 1.2.0 (deps/hiredis of Redis 8.6.3)"

// hiredisTypes maps the REDIS_REPLY_* types that name one RESP type to it:
// a redisReply keeps its type, so a value of the matching type keeps the
// distinction (Match, where a plain string would erase it). REDIS_REPLY_NIL
// is left out: hiredis gives it to $-1, *-1 and _ alike.
var hiredisTypes = map[string]resp.Kind{
	"REDIS_REPLY_STATUS":  resp.SimpleString,
	"REDIS_REPLY_ERROR":   resp.SimpleError,
	"REDIS_REPLY_STRING":  resp.BlobString,
	"REDIS_REPLY_INTEGER": resp.Integer,
	"REDIS_REPLY_ARRAY":   resp.Array,
	"REDIS_REPLY_DOUBLE":  resp.Double,
	"REDIS_REPLY_BOOL":    resp.Boolean,
	"REDIS_REPLY_MAP":     resp.Map,
	"REDIS_REPLY_SET":     resp.Set,
	"REDIS_REPLY_PUSH":    resp.Push,
	"REDIS_REPLY_BIGNUM":  resp.BigNumber,
	"REDIS_REPLY_VERB":    resp.VerbatimString,
	"REDIS_REPLY_ATTR":    resp.Attribute,
}

// hiredisRESP is the RESP type name of a hiredis host type
// ("REDIS_REPLY_VERB vtype=txt" → "verbatim string"), or "".
func hiredisRESP(typ string) string {
	t, _, _ := strings.Cut(typ, " ")
	if k, ok := hiredisTypes[t]; ok {
		return k.String()
	}
	return ""
}

// declaredFormat is the verbatim format a native names in its type
// (hiredis's vtype: "REDIS_REPLY_VERB vtype=txt"), if it names one.
func (n *Native) declaredFormat() (string, bool) {
	_, f, ok := strings.Cut(n.Type, " vtype=")
	return f, ok
}

func addHiredisContract(m map[string]*contract) {
	m["hiredis"] = newContract("hiredis", []string{
		"a redisReply keeps its RESP type (REDIS_REPLY_STATUS, _STRING, _VERB with its vtype, _BIGNUM with its digits, _DOUBLE with the text received and dval): " +
			"the type kept is a match (" + hiredisSource + " read.c processItem, hiredis.c createStringObject, createDoubleObject)",
		"REDIS_REPLY_NIL for $-1, *-1 and _ alike (" + hiredisSource + " read.c processBulkItem, processAggregateItem, processLineItem)",
		"no blob errors (!) nor attributes (|): read.c processItem has no case for them, and the reader fails with \"Protocol error, got ... as reply type byte\"",
		"RESP3 push frames go to the context's push callback, redisPushAutoFree by default (hiredis.c redisConnectWithOptions): redisCommandArgv never returns them",
	}, nil)
	m[versionless(hiredisLocaleLabel)] = m["hiredis"].derive(versionless(hiredisLocaleLabel),
		"LC_ALL="+commaLocale+": the adapter calls setlocale(LC_ALL, \"\") first, as a C application that honours its user's locale does; "+
			hiredisSource+" read.c processLineItem parses a RESP3 double with strtod, which reads the locale's decimal separator (a comma): "+
			"strtod stops at the '.' of 1.5 and the reader fails with \"Bad double value\"")
}
