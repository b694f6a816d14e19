package clients

import (
	"bytes"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/respcheck/respcheck/resp"
)

// contract is a library's decoding contract: for each RESP type, the native
// kinds (Native.Kind) the library may decode it to, with the verdict a
// faithful value of that kind earns (Match or Erased). Any other kind is a
// mismatch, and so is a value of an allowed kind that differs.
type contract struct {
	Library string
	Kinds   map[resp.Kind]map[string]Verdict
	// Notes explain the library-specific conversions, for reports.
	Notes []string
	// Conversions are the documented reshapings the library applies,
	// tried where a native kind is not in Kinds (or an attribute would be
	// dropped): a value that is one of them is Converted, not Mismatch.
	Conversions []*conversion
	// Callbacks are the functions the library applies to a reply by its
	// command's name (redis-py's response callbacks): a mismatch on the
	// reply to one of their commands is the callback's doing, and names it
	// (ruleCallback).
	Callbacks []*callback
	// output, when set, judges a command-line client's printed text
	// instead of Kinds (see cliDriver.judgeOutput).
	output func(st cliStep, n Native) (Verdict, []string)
}

// conversion is one documented, lossless reshaping of a reply by a library.
type conversion struct {
	// Name says what becomes what ("array of field-value pairs → dict").
	Name string
	// Source cites the library documentation or source that states it
	// (version and file).
	Source string
	// Commands, when set, are the command names ("PING", "CLIENT
	// SETNAME") whose replies alone it applies to, at their root: a
	// response callback's reshaping.
	Commands []string
	// RESP2 says it applies to replies on RESP2 connections only.
	RESP2 bool
	// apply reports whether n is this reshaping of v, and the verdict of
	// its parts (judged by j).
	apply func(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool)
}

// callback is a function a library applies to the reply of the commands
// it is registered for, by name.
type callback struct {
	Commands []string
	// RESP2 says the library applies it on RESP2 connections only.
	RESP2 bool
	// Name says what it does ("parse_set_result: +OK → True, …").
	Name string
	// Source cites where the library registers and defines it (version
	// and file).
	Source string
}

// callback is the library's callback for the command named cmd on a
// connection speaking RESP proto, or nil.
func (c *contract) callback(cmd string, proto int) *callback {
	for _, cb := range c.Callbacks {
		if slices.Contains(cb.Commands, cmd) && !(cb.RESP2 && proto != 2) {
			return cb
		}
	}
	return nil
}

// commandName is the name a library registers a command's callback
// under: the first argument upper-cased, with its subcommand for a
// container command ("CLIENT SETNAME"); "" for no command.
func commandName(args [][]byte) string {
	if len(args) == 0 {
		return ""
	}
	name := strings.ToUpper(string(args[0]))
	if len(args) > 1 && containerCommands[name] {
		name += " " + strings.ToUpper(string(args[1]))
	}
	return name
}

// containerCommands are the commands whose first argument is a
// subcommand (Redis 8.6.3 COMMAND DOCS: those with "subcommands").
var containerCommands = map[string]bool{
	"ACL": true, "CLIENT": true, "CLUSTER": true, "COMMAND": true, "CONFIG": true, "FUNCTION": true,
	"LATENCY": true, "MEMORY": true, "MODULE": true, "OBJECT": true, "PUBSUB": true, "SCRIPT": true,
	"SLOWLOG": true, "XGROUP": true, "XINFO": true,
}

// baseKinds is what every library may do.
var baseKinds = map[resp.Kind]map[string]Verdict{
	resp.SimpleString:   {"string": Erased, "bytes": Erased},
	resp.BlobString:     {"string": Match, "bytes": Match},
	resp.VerbatimString: {"string": Erased, "bytes": Erased},
	resp.SimpleError:    {"error": Match},
	resp.BlobError:      {"error": Erased},
	resp.Integer:        {"int": Match, "number": Match, "bigint": Match},
	resp.Double:         {"float": Match, "number": Match, "string": Erased, "bytes": Erased},
	resp.Boolean:        {"bool": Match},
	resp.BigNumber:      {"bigint": Match, "int": Match, "string": Erased, "bytes": Erased},
	resp.NilBlobString:  {"nil": Match},
	resp.Null:           {"nil": Match},
	resp.NilArray:       {"nil": Erased},
	resp.Array:          {"list": Match},
	resp.Set:            {"set": Match, "list": Erased},
	resp.Map:            {"map": Match, "list": Erased},
	resp.Push:           {"list": Match},
}

func newContract(lib string, notes []string, extra map[resp.Kind]map[string]Verdict) *contract {
	c := &contract{Library: lib, Kinds: map[resp.Kind]map[string]Verdict{}, Notes: notes}
	for k, m := range baseKinds {
		c.Kinds[k] = map[string]Verdict{}
		for n, v := range m {
			c.Kinds[k][n] = v
		}
	}
	for k, m := range extra {
		if c.Kinds[k] == nil {
			c.Kinds[k] = map[string]Verdict{}
		}
		for n, v := range m {
			c.Kinds[k][n] = v
		}
	}
	return c
}

// contracts are the decoding contracts of the known libraries, by library
// name (the part of a client name before "/") or client name.
var contracts = buildContracts()

// buildContracts is contracts: the Go and Node libraries' written here,
// then each other language's from its file, a derived contract ("/pubsub",
// "/pipeline") after the one it derives from.
func buildContracts() map[string]*contract {
	m := maps.Clone(baseContracts)
	for _, add := range []func(map[string]*contract){
		addHiredisContract, addPHPContract, addRedisRbContract, addRedisPyContracts,
		addRedisPyPubsubContract, addNodeContracts, addNodePubsubContracts,
		addPipelineContracts, addPubsubContracts,
	} {
		add(m)
	}
	return m
}

// baseContracts are the contracts of the Go libraries, redis-py and the
// Node libraries whose configurations do not change decoding.
var baseContracts = map[string]*contract{
	"go-redis": withConversions(newContract("go-redis", []string{
		"blob and simple strings are string; integers int64; RESP3 doubles float64; big numbers *big.Int;",
		"nil replies are nil with the redis.Nil error; arrays []interface{}; maps map[interface{}]interface{}",
	}, nil), &conversion{Name: "nil EXEC of an aborted transaction (WATCH) → the TxFailedErr error on each command (pipelines)",
		Source: "go-redis v9.23.0 redis.go txPipelineReadQueued: if err == Nil { err = TxFailedErr }; tx.go: const TxFailedErr = proto.RedisError(\"redis: transaction failed\")",
		apply:  txFailed}),
	"rueidis": withConversions(newContract("rueidis", []string{"RedisMessage keeps its RESP type; RESP2 nils become null"}, nil),
		&conversion{Name: "verbatim string kept whole, its format (txt:) included, in a message typed verbatim",
			Source: "rueidis 1.0.79 resp.go: readers[typeVerbatimString] = readBlobString", apply: verbatimWhole}),
	"valkey-go": withConversions(newContract("valkey-go", []string{"ValkeyMessage keeps its RESP type; RESP2 nils become null"}, nil),
		&conversion{Name: "verbatim string kept whole, its format (txt:) included, in a message typed verbatim",
			Source: "valkey-go 1.0.79 resp.go (forked from rueidis): verbatim strings are read as blob strings", apply: verbatimWhole}),
	"rueidis/to-any":   toAnyContract("rueidis", "rueidis 1.0.79 message.go"),
	"valkey-go/to-any": toAnyContract("valkey-go", "valkey-go 1.0.79 message.go (forked from rueidis)"),
	"redigo":           newContract("redigo", []string{"blob strings are []byte, simple strings string, integers int64, errors redis.Error"}, nil),
	"radix":            newContract("radix", []string{"decoded into interface{} by radix's resp3 unmarshaler"}, nil),
	"redis-py": withConversions(newContract("redis-py", []string{
		"a bool is acceptable only for +OK (True) or an integer 0/1 (response callbacks)",
	}, map[resp.Kind]map[string]Verdict{
		resp.SimpleString: {"bool": Match},
		resp.Integer:      {"bool": Match},
	}), &conversion{Name: "RESP2 array of field-value pairs → dict (response callback, e.g. HGETALL)",
		Source: "redis-py 4.3.4 redis/client.py RESPONSE_CALLBACKS and 6.4.0 redis/_parsers/helpers.py _RedisCallbacksRESP2: \"HGETALL\": lambda r: r and pairs_to_dict(r) or {}",
		apply:  pairsToMap}, redisPyWatch, redisPyErrorClass, redisPyScan, redisPyInfo, redisPyPong, redisPyFloat, redisPyFloatRESP2, redisPySet, redisPyScorePairs),
	"ioredis": withConversions(newContract("ioredis", []string{
		"replyMapping legacy (the default): RESP3 maps flat arrays, doubles strings, booleans 1/0",
	}, map[resp.Kind]map[string]Verdict{resp.Boolean: {"number": Erased, "int": Erased}}),
		&conversion{Name: "(p|s)subscribe confirmation → its subscription count",
			Source: "ioredis 6.0.0 built/DataHandler.js: a subscribe confirmation settles the command with reply[2] (fillSubCommand)",
			apply:  subscribeCount}),
	"iovalkey": newContract("iovalkey", nil, map[resp.Kind]map[string]Verdict{resp.Boolean: {"number": Erased, "int": Erased}}),
	"node-redis": newContract("node-redis", []string{
		"RESP3 with the default type mapping: maps objects, doubles numbers, big numbers bigint or string",
	}, nil),
	"valkey-glide": withConversions(newContract("valkey-glide", nil, nil),
		&conversion{Name: "RESP2 array of field-value pairs → record, as RESP3 would send a map (e.g. HGETALL)",
			Source: "valkey-glide 2.5.2 build-ts/BaseClient.d.ts: hgetall returns the fields and their values; the Rust core converts RESP2 replies to the RESP3 shape of the command",
			apply:  pairsToMap},
		&conversion{Name: "attribute kept as {value, attributes}",
			Source: "valkey-glide 2.5.2 build-ts/BaseClient.d.ts: interface ReturnTypeAttribute { value: GlideReturnType; attributes: ReturnTypeRecord }",
			apply:  attributeKept}),
}

// toAnyContract is the contract of RedisResult.ToAny (rueidis) and
// ValkeyResult.ToAny (valkey-go): Go values, not the typed message.
func toAnyContract(lib, src string) *contract {
	return withConversions(newContract(lib+"/to-any", []string{
		"ToAny(): blob, simple and verbatim strings and big numbers are string; doubles float64; booleans bool; integers int64;",
		"arrays and sets []any; maps map[string]any keyed by each key's string payload; a nested error is an error value, a nested nil nil;",
		"the AsXxx helpers differ (" + src + "): AsStrSlice and AsStrMap give nil and other non-string elements as \"\" (\"will be present as zero\"),",
		"AsIntSlice gives them as 0; AsMap, AsStrMap and AsIntMap take an array of pairs as a map; AsBool is true for \"OK\" and non-zero integers",
	}, nil), &conversion{Name: "verbatim string kept whole, its format (txt:) included, as a string",
		Source: src + " ToAny: case typeBlobString, typeSimpleString, typeVerbatimString, typeBigNumber: return m.string(), nil (the verbatim payload is read whole)",
		apply:  verbatimText})
}

func withConversions(c *contract, cs ...*conversion) *contract {
	c.Conversions = cs
	for _, cv := range cs {
		c.Notes = append(c.Notes, "converted: "+cv.Name+" ("+cv.Source+")")
	}
	return c
}

// pairsToMap: a RESP2 array of an even number of elements decoded as a map
// whose entries are its consecutive pairs.
func pairsToMap(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if v.Kind != resp.Array || len(v.Elems)%2 != 0 || n.Kind != "map" || len(n.Pairs) != len(v.Elems)/2 {
		return 0, false
	}
	// Judged once: a mismatch is rolled back by convert.
	if vd := j.pairs(v, n, path); vd < Mismatch {
		return vd, true
	}
	return 0, false
}

// txFailed: the nil reply of an aborted EXEC decoded as go-redis's
// TxFailedErr.
func txFailed(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if !path.root() || (v.Kind != resp.NilArray && v.Kind != resp.Null) || n.Kind != "error" || n.Err == nil ||
		n.Err.Message != "redis: transaction failed" {
		return 0, false
	}
	return Match, true
}

// verbatimWhole: a verbatim string whose text keeps the format and colon
// ("txt:..."), in a native that says it is a verbatim string.
func verbatimWhole(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if n.RESP() != "verbatim string" {
		return 0, false
	}
	return verbatimText(j, v, n, path)
}

// verbatimText: a verbatim string decoded as its whole payload, format and
// colon included ("txt:...").
func verbatimText(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if v.Kind != resp.VerbatimString || n.Kind != "string" && n.Kind != "bytes" {
		return 0, false
	}
	b, ok := n.Bytes()
	want := append(append(v.Format[:0:0], v.Format[:]...), ':')
	if !ok || !bytes.Equal(b, append(want, v.Str...)) {
		return 0, false
	}
	return Match, true
}

// subscribeCount: a (p|s)subscribe or unsubscribe confirmation decoded as
// its count (the channel and the kind are the command's own).
func subscribeCount(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if (v.Kind != resp.Push && v.Kind != resp.Array) || len(v.Elems) != 3 || v.Elems[2].Kind != resp.Integer {
		return 0, false
	}
	if _, _, ok := subscribeFamily(string(v.Elems[0].Str)); !ok {
		return 0, false
	}
	if n.Kind != "int" && n.Kind != "number" {
		return 0, false
	}
	count := &v.Elems[2]
	if last := j.frames[len(j.frames)-1]; path.root() && len(j.frames) > 1 && len(last.Elems) == 3 {
		count = &last.Elems[2] // the command settles with its last confirmation
	}
	if ok, _ := numberEqual(count, n); !ok {
		return 0, false
	}
	return Match, true
}

// attributeKept: a reply with an attribute decoded as {value, attributes}:
// the value judged against the reply, the attributes against the
// attribute's map.
func attributeKept(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if v.Attr == nil || n.Kind != "map" || len(n.Pairs) != 2 {
		return 0, false
	}
	var val, attrs *Native
	for i := range n.Pairs {
		switch text(&n.Pairs[i][0]) {
		case "value":
			val = &n.Pairs[i][1]
		case "attributes":
			attrs = &n.Pairs[i][1]
		}
	}
	if val == nil || attrs == nil {
		return 0, false
	}
	bare := *v
	bare.Attr = nil
	// Judged once: a mismatch is rolled back by convert.
	vd := j.judge(&bare, val, path.field(".value"), false)
	if vd >= Mismatch {
		return 0, false
	}
	va := j.pairs(v.Attr, attrs, path.field(".attributes"))
	if va >= Mismatch {
		return 0, false
	}
	return max(vd, va), true
}

// contractOf returns the contract of driver d's client name: its own when
// it has one (a command-line client), else contractFor's.
func contractOf(d Driver, client string) *contract {
	if c, ok := d.(interface{ contract() *contract }); ok {
		return c.contract()
	}
	return contractFor(client)
}

// contractFor returns the contract of the library of a client name such as
// "redis-py-4.3.4/resp2"; unknown libraries get the base contract.
func contractFor(client string) *contract {
	if i := strings.LastIndex(client, "/resp"); i > 0 {
		if c, ok := contracts[client[:i]]; ok {
			return c // a configuration's own contract ("rueidis/to-any")
		}
	}
	lib, _, _ := strings.Cut(client, "/")
	if c, ok := contracts[lib]; ok {
		return c // a version's own ("node-redis-6.3.1"), before its family's
	}
	if c, ok := contracts[versionless(lib)]; ok {
		return c // a configuration's own ("redis-py[callbacks=none]")
	}
	for l := lib; l != ""; {
		if c, ok := contracts[l]; ok {
			return c
		}
		i := strings.LastIndexByte(l, '-')
		if i < 0 {
			break
		}
		l = l[:i]
	}
	return newContract(lib, nil, nil)
}

// erasures says, per RESP type, what a library that erases it loses.
var erasures = map[resp.Kind]string{
	resp.SimpleString:   "simple and blob strings look alike",
	resp.VerbatimString: "the verbatim format is lost",
	resp.BlobError:      "blob and simple errors look alike",
	resp.NilArray:       "nil array and nil blob string look alike",
	resp.Set:            "a set becomes a list",
	resp.Map:            "a map becomes a flat list",
	resp.Double:         "the number is kept as text",
	resp.BigNumber:      "the number is kept as text",
	resp.Boolean:        "a boolean becomes a number",
	resp.Integer:        "the number is kept as text",
}

func erasedWhat(k resp.Kind, nk string, key bool) string {
	if key {
		return "a map key of another type becomes text"
	}
	if s, ok := erasures[k]; ok {
		return s
	}
	return "a distinction is lost"
}

func scalar(k resp.Kind) bool {
	switch k {
	case resp.Integer, resp.Double, resp.Boolean, resp.BigNumber, resp.SimpleString, resp.BlobString, resp.VerbatimString:
		return true
	}
	return false
}

func attrBytes(v *resp.Value) []byte {
	if v.Attr == nil {
		return nil
	}
	return v.Attr.Raw
}

func cliShort(v *resp.Value) string {
	raw := v.Raw
	if len(raw) > 84 {
		raw = raw[:84] // each byte escapes to one byte or more: enough for 80
	}
	s := resp.Escape(raw)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// RESP returns the RESP type name a library keeps for the value (rueidis
// and valkey-go messages know theirs), or "".
func (n *Native) RESP() string {
	if t, ok := strings.CutPrefix(n.Type, "RedisMessage "); ok {
		return respName(t)
	}
	if t, ok := strings.CutPrefix(n.Type, "ValkeyMessage "); ok {
		return respName(t)
	}
	return hiredisRESP(n.Type)
}

func respName(t string) string {
	switch t {
	case "int64":
		return "integer"
	case "float64":
		return "double"
	}
	return t
}

// withoutInvalid is s without its bytes that are not UTF-8 (and without
// U+FFFD).
func withoutInvalid(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\uFFFD", "")
}

// scalarEqual compares a non-aggregate reply with an allowed native kind.
// why explains a difference (ok false) or a lossless but lossy-looking
// detail (ok true, why not empty: erased).
func scalarEqual(v *resp.Value, n *Native) (ok bool, why string) {
	switch v.Kind {
	case resp.NilBlobString, resp.Null, resp.NilArray:
		if n.Kind == "nil" {
			return true, ""
		}
		return false, "want nil"
	case resp.SimpleError, resp.BlobError:
		msg := ""
		if n.Err != nil {
			msg = n.Err.Message
		}
		text := string(v.Str)
		switch {
		case msg == text:
			return true, ""
		case msg == strings.TrimPrefix(text, "ERR "):
			return true, "the error's \"ERR \" prefix was dropped"
		case text == "ERR" && msg == "":
			return true, "the error's \"ERR\" code was dropped, and no text follows it"
		case strings.TrimSpace(strings.TrimPrefix(text, "ERR ")) == "":
			// An empty error text: any other message was invented.
			return false, "the server's error text is empty; the library's is " + quote(msg)
		case strings.Contains(msg, text):
			return true, "the error text is wrapped: " + quote(msg)
		case strings.Contains(msg, strings.TrimPrefix(text, "ERR ")):
			return true, "the error text is wrapped and its \"ERR \" code dropped: " + quote(msg)
		case !utf8.ValidString(text) && withoutInvalid(text) == strings.ReplaceAll(msg, "\uFFFD", ""):
			return true, "the error text's bytes that are not UTF-8 arrived as U+FFFD: an error's message reaches the judge as text (Native.Err), so whether the library or its adapter's JSON replaced them is not known"
		case !utf8.ValidString(text) && withoutInvalid(strings.TrimPrefix(text, "ERR ")) == strings.ReplaceAll(msg, "\uFFFD", ""):
			// redis-py 6.4.0 drops the "ERR " code too (a generated
			// "-ERR \xff\xfe" on XRANGE was "error text differs").
			return true, "the error's \"ERR \" prefix was dropped, and its bytes that are not UTF-8 arrived as U+FFFD (an error's message reaches the judge as text: whether the library or its adapter's JSON replaced them is not known)"
		}
		return false, "error text differs"
	}
	switch n.Kind {
	case "string", "bytes":
		b, okb := n.Bytes()
		if !okb {
			return false, "no payload"
		}
		want := v.Str
		if v.Kind == resp.VerbatimString && bytes.Equal(b, append(append(v.Format[:0:0], v.Format[:]...), append([]byte(":"), v.Str...)...)) {
			return false, "the verbatim format prefix was kept in the text"
		}
		if f, ok := n.declaredFormat(); ok && v.Kind == resp.VerbatimString && f != string(v.Format[:]) {
			return false, "the verbatim format " + quote(f) + " is not the wire's " + quote(string(v.Format[:]))
		}
		if bytes.Equal(b, want) {
			return true, ""
		}
		if bytes.ContainsRune(b, 0xFFFD) && !bytes.Equal(b, want) {
			return false, "the bytes were decoded as UTF-8 with replacement characters"
		}
		return false, "different text"
	case "bool":
		t := strings.ToLower(text(n))
		switch v.Kind {
		case resp.Boolean:
			if t == strconv.FormatBool(v.Bool) {
				return true, ""
			}
			return false, "different boolean"
		case resp.SimpleString:
			if string(v.Str) == "OK" && t == "true" {
				return true, ""
			}
			return false, "a bool is acceptable only for +OK (True)"
		case resp.Integer:
			if (v.Int == 1 && t == "true") || (v.Int == 0 && t == "false") {
				return true, ""
			}
			return false, "a bool is acceptable only for integers 0 and 1"
		}
		return false, "unexpected bool"
	case "int", "bigint", "number", "float":
		return numberEqual(v, n)
	case "nil":
		return false, "nil for a non-nil reply"
	}
	return false, "unexpected kind " + n.Kind
}

func text(n *Native) string {
	if n.Text != nil {
		return *n.Text
	}
	b, _ := n.Bytes()
	return string(b)
}

// numberEqual compares numeric replies with numeric natives exactly: a
// JavaScript number for an integer beyond 2^53 differs, and so does a
// float whose value is not the double the server wrote.
func numberEqual(v *resp.Value, n *Native) (bool, string) {
	t := text(n)
	switch v.Kind {
	case resp.Integer, resp.BigNumber:
		if (n.Kind == "int" || n.Kind == "bigint") && t == string(v.Str) {
			return true, "" // the same digits: no need to parse them
		}
		want, ok := new(big.Int).SetString(strings.TrimPrefix(string(v.Str), "+"), 10)
		if !ok {
			return false, "unparsable server integer"
		}
		if n.Kind == "int" || n.Kind == "bigint" {
			got, ok := new(big.Int).SetString(strings.TrimSuffix(t, "n"), 10)
			if ok && got.Cmp(want) == 0 {
				return true, ""
			}
			return false, "different integer"
		}
		f, ok := parseFloatText(t)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return false, "not a finite number"
		}
		got, _ := new(big.Float).SetFloat64(f).Int(nil)
		if new(big.Float).SetFloat64(f).IsInt() && got.Cmp(want) == 0 {
			return true, ""
		}
		return false, "precision lost: the host number is " + strconv.FormatFloat(f, 'g', -1, 64)
	case resp.Double:
		f, ok := parseFloatText(t)
		if !ok {
			return false, "unparsable host number " + quote(t)
		}
		w := v.Float
		switch {
		case math.IsNaN(w) && math.IsNaN(f):
			return true, ""
		case f == w && (f != 0 || math.Signbit(f) == math.Signbit(w)):
			return true, ""
		}
		return false, "a different double: " + strconv.FormatFloat(f, 'g', -1, 64) + " vs " + strconv.FormatFloat(w, 'g', -1, 64)
	case resp.Boolean:
		if (t == "1" && v.Bool) || (t == "0" && !v.Bool) {
			return true, ""
		}
		return false, "different boolean"
	}
	return false, "a number for RESP " + v.Kind.String()
}

// parseFloatText reads the text forms hosts print: 1.5, 1e+21, inf, -inf,
// Infinity, nan, NaN, +Inf.
func parseFloatText(s string) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan", "-nan", "+nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
