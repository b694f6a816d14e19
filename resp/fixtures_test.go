package resp_test

import (
	"math"

	"github.com/respcheck/respcheck/resp"
)

// fixture is one valid frame with its expected value. canonical frames
// re-encode (resp.Append) to exactly the same bytes.
type fixture struct {
	name      string
	in        string
	want      resp.Value
	canonical bool
}

func txt(k resp.Kind, s string) resp.Value { return resp.Value{Kind: k, Str: []byte(s)} }
func integer(s string, n int64) resp.Value {
	return resp.Value{Kind: resp.Integer, Str: []byte(s), Int: n}
}
func double(s string, f float64) resp.Value {
	return resp.Value{Kind: resp.Double, Str: []byte(s), Float: f}
}
func boolean(b bool) resp.Value {
	s := "f"
	if b {
		s = "t"
	}
	return resp.Value{Kind: resp.Boolean, Str: []byte(s), Bool: b}
}
func agg(k resp.Kind, elems ...resp.Value) resp.Value { return resp.Value{Kind: k, Elems: elems} }
func streamed(v resp.Value) resp.Value                { v.Streamed = true; return v }
func withAttr(a, v resp.Value) resp.Value             { v.Attr = &a; return v }
func verbatim(f, s string) resp.Value {
	v := resp.Value{Kind: resp.VerbatimString, Str: []byte(s)}
	copy(v.Format[:], f)
	return v
}

var (
	ok     = txt(resp.SimpleString, "OK")
	bs     = func(s string) resp.Value { return txt(resp.BlobString, s) }
	simple = func(s string) resp.Value { return txt(resp.SimpleString, s) }
	one    = integer("1", 1)
)

var fixtures = []fixture{
	// RESP2
	{"RESP2/simple-string", "+OK\r\n", ok, true},
	{"RESP2/simple-string-empty", "+\r\n", simple(""), true},
	{"RESP2/simple-error", "-ERR unknown command 'foo'\r\n", txt(resp.SimpleError, "ERR unknown command 'foo'"), true},
	{"RESP2/simple-error-wrongtype", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", txt(resp.SimpleError, "WRONGTYPE Operation against a key holding the wrong kind of value"), true},
	{"RESP2/integer", ":1000\r\n", integer("1000", 1000), true},
	{"RESP2/integer-zero", ":0\r\n", integer("0", 0), true},
	{"RESP2/integer-negative", ":-42\r\n", integer("-42", -42), true},
	{"RESP2/integer-plus", ":+7\r\n", integer("+7", 7), true},
	{"RESP2/integer-leading-zeros", ":007\r\n", integer("007", 7), false},
	{"RESP2/integer-minus-zero", ":-0\r\n", integer("-0", 0), false},
	{"RESP2/integer-18-digits", ":-999999999999999999\r\n", integer("-999999999999999999", -999999999999999999), true},
	{"RESP2/integer-max", ":9223372036854775807\r\n", integer("9223372036854775807", math.MaxInt64), true},
	{"RESP2/integer-min", ":-9223372036854775808\r\n", integer("-9223372036854775808", math.MinInt64), true},
	{"RESP2/blob-string", "$8\r\noriginal\r\n", bs("original"), true},
	{"RESP2/blob-string-empty", "$0\r\n\r\n", bs(""), true},
	{"RESP2/blob-string-binary", "$4\r\n\r\n\x00\xff\r\n", bs("\r\n\x00\xff"), true},
	{"RESP2/nil-blob-string", "$-1\r\n", resp.Value{Kind: resp.NilBlobString}, true},
	{"RESP2/nil-array", "*-1\r\n", resp.Value{Kind: resp.NilArray}, true},
	{"RESP2/empty-array", "*0\r\n", agg(resp.Array), true},
	{"RESP2/array", "*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n", agg(resp.Array, bs("foo"), bs("bar")), true},
	{"RESP2/array-mixed", "*3\r\n:1\r\n+two\r\n$-1\r\n", agg(resp.Array, one, simple("two"), resp.Value{Kind: resp.NilBlobString}), true},
	{"RESP2/array-nested", "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n",
		agg(resp.Array, agg(resp.Array, one, integer("2", 2), integer("3", 3)), agg(resp.Array, simple("Hello"), txt(resp.SimpleError, "World"))), true},
	{"RESP2/array-with-nil-array", "*2\r\n*-1\r\n*0\r\n", agg(resp.Array, resp.Value{Kind: resp.NilArray}, agg(resp.Array)), true},
	// RESP3 spec examples
	{"RESP3/array-of-integers", "*3\r\n:1\r\n:2\r\n:3\r\n", agg(resp.Array, one, integer("2", 2), integer("3", 3)), true},
	{"RESP3/map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", agg(resp.Map, simple("first"), one, simple("second"), integer("2", 2)), true},
	{"RESP3/map-empty", "%0\r\n", agg(resp.Map), true},
	{"RESP3/set", "~2\r\n+a\r\n+b\r\n", agg(resp.Set, simple("a"), simple("b")), true},
	{"RESP3/set-empty", "~0\r\n", agg(resp.Set), true},
	{"RESP3/null", "_\r\n", resp.Value{Kind: resp.Null}, true},
	{"RESP3/boolean-true", "#t\r\n", boolean(true), true},
	{"RESP3/boolean-false", "#f\r\n", boolean(false), true},
	{"RESP3/double", ",1.23\r\n", double("1.23", 1.23), true},
	{"RESP3/double-integral", ",10\r\n", double("10", 10), true},
	{"RESP3/double-exponent", ",1e10\r\n", double("1e10", 1e10), true},
	{"RESP3/double-negative-exponent", ",-1.5E-3\r\n", double("-1.5E-3", -1.5e-3), true},
	{"RESP3/double-inf", ",inf\r\n", double("inf", math.Inf(1)), true},
	{"RESP3/double-neg-inf", ",-inf\r\n", double("-inf", math.Inf(-1)), true},
	{"RESP3/double-nan", ",nan\r\n", double("nan", math.NaN()), true},
	{"RESP3/double-neg-nan", ",-nan\r\n", double("-nan", math.NaN()), true},
	{"RESP3/big-number", "(3492890328409238509324850943850943825024385\r\n", txt(resp.BigNumber, "3492890328409238509324850943850943825024385"), true},
	{"RESP3/big-number-negative", "(-3492890328409238509324850943850943825024385\r\n", txt(resp.BigNumber, "-3492890328409238509324850943850943825024385"), true},
	{"RESP3/blob-error", "!21\r\nSYNTAX invalid syntax\r\n", txt(resp.BlobError, "SYNTAX invalid syntax"), true},
	{"RESP3/verbatim-string", "=15\r\ntxt:Some string\r\n", verbatim("txt", "Some string"), true},
	{"RESP3/verbatim-string-empty", "=4\r\nmkd:\r\n", verbatim("mkd", ""), true},
	{"RESP3/push-pubsub", ">4\r\n+pubsub\r\n+message\r\n+somechannel\r\n+this is the message\r\n",
		agg(resp.Push, simple("pubsub"), simple("message"), simple("somechannel"), simple("this is the message")), true},
	{"RESP3/push-empty", ">0\r\n", agg(resp.Push), true},
	{"attribute/key-popularity", "|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9103921\r\n",
		withAttr(agg(resp.Attribute, simple("key-popularity"), agg(resp.Map, bs("a"), double("0.1923", 0.1923), bs("b"), double("0.0012", 0.0012))),
			agg(resp.Array, integer("2039123", 2039123), integer("9103921", 9103921))), true},
	{"attribute/nested-element", "*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n",
		agg(resp.Array, one, withAttr(agg(resp.Attribute, simple("ttl"), integer("3600", 3600)), integer("2", 2))), true},
	{"attribute/before-push", "|1\r\n+a\r\n+b\r\n>2\r\n+message\r\n+x\r\n",
		withAttr(agg(resp.Attribute, simple("a"), simple("b")), agg(resp.Push, simple("message"), simple("x"))), true},
	{"attribute/empty", "|0\r\n+OK\r\n", withAttr(agg(resp.Attribute), ok), true},
	{"attribute/chained", "|0\r\n|1\r\n+k\r\n+v\r\n:5\r\n",
		withAttr(withAttr(agg(resp.Attribute), agg(resp.Attribute, simple("k"), simple("v"))), integer("5", 5)), true},
	{"streamed/blob-string", "$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n", streamed(bs("Hello word")), false},
	{"streamed/blob-string-one-chunk", "$?\r\n;5\r\nhello\r\n;0\r\n", streamed(bs("hello")), true},
	{"streamed/blob-string-empty", "$?\r\n;0\r\n", streamed(bs("")), true},
	{"streamed/array", "*?\r\n:1\r\n:2\r\n:3\r\n.\r\n", streamed(agg(resp.Array, one, integer("2", 2), integer("3", 3))), true},
	{"streamed/array-empty", "*?\r\n.\r\n", streamed(agg(resp.Array)), true},
	{"streamed/map", "%?\r\n+a\r\n:1\r\n+b\r\n:2\r\n.\r\n", streamed(agg(resp.Map, simple("a"), one, simple("b"), integer("2", 2))), true},
	{"streamed/set", "~?\r\n+a\r\n.\r\n", streamed(agg(resp.Set, simple("a"))), true},
	{"streamed/push", ">?\r\n+message\r\n.\r\n", streamed(agg(resp.Push, simple("message"))), true},
	{"streamed/nested", "*?\r\n*?\r\n:1\r\n.\r\n$?\r\n;1\r\nx\r\n;0\r\n.\r\n", streamed(agg(resp.Array, streamed(agg(resp.Array, one)), streamed(bs("x")))), true},
	{"mixed/map-of-aggregates", "%1\r\n$4\r\nkeys\r\n~2\r\n_\r\n#t\r\n", agg(resp.Map, bs("keys"), agg(resp.Set, resp.Value{Kind: resp.Null}, boolean(true))), true},
}
