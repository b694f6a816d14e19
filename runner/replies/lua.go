package replies

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// Lua returns a script that makes a server send f.Reply through EVAL
// (EVAL script 0), and true; or false when Lua cannot express the reply
// (a push, an attribute, a null inside an array, RESP2's nil array, an
// integer beyond ±2^53, a map with keys that are not distinct blob
// strings...). In RESP3 the script starts with redis.setresp(3) and is for
// a connection in RESP3. Map and set members come out in the order Lua
// iterates its table, not necessarily the frame's (sameUpToOrder).
func (f Frame) Lua() (string, bool) {
	if len(f.Pushes) > 0 || len(f.More) > 0 || f.Class != Served || f.Proto == 2 && hasRESP3(f.Reply) {
		// A RESP3 reply on a RESP2 connection (HELLO 3's) is no script's:
		// a script's reply is in the connection's protocol.
		return "", false
	}
	var b strings.Builder
	if f.Proto == 3 {
		b.WriteString("redis.setresp(3); ")
	}
	b.WriteString("return ")
	if !luaValue(&b, f.Reply, f.Proto, true) {
		return "", false
	}
	return b.String(), true
}

const maxLuaInt = 1 << 53

func luaValue(b *strings.Builder, v resp.Value, proto int, top bool) bool {
	if v.Attr != nil || v.Streamed {
		return false
	}
	switch v.Kind {
	case resp.BlobString:
		luaString(b, v.Str)
	case resp.SimpleString:
		b.WriteString("{ok=")
		luaString(b, v.Str)
		b.WriteString("}")
	case resp.SimpleError:
		b.WriteString("{err=")
		luaString(b, v.Str)
		b.WriteString("}")
	case resp.Integer:
		if v.Int > maxLuaInt || v.Int < -maxLuaInt {
			return false
		}
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case resp.NilBlobString:
		if proto != 2 {
			return false
		}
		b.WriteString("false")
	case resp.Null:
		if !top {
			return false // nil ends a Lua array
		}
		b.WriteString("nil")
	case resp.Boolean:
		b.WriteString(strconv.FormatBool(v.Bool))
	case resp.Double:
		n, ok := luaNumber(string(v.Str))
		if !ok {
			return false
		}
		b.WriteString("{double=" + n + "}")
	case resp.BigNumber:
		if _, ok := new(big.Int).SetString(string(v.Str), 10); !ok {
			return false
		}
		b.WriteString("{big_number=")
		luaString(b, v.Str)
		b.WriteString("}")
	case resp.VerbatimString:
		b.WriteString("{verbatim_string={format=")
		luaString(b, v.Format[:])
		b.WriteString(", string=")
		luaString(b, v.Str)
		b.WriteString("}}")
	case resp.Array:
		b.WriteString("{")
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if !luaValue(b, e, proto, false) {
				return false
			}
		}
		b.WriteString("}")
	case resp.Map, resp.Set:
		return luaTable(b, v, proto)
	default:
		return false
	}
	return true
}

// luaTable writes {map={...}} or {set={...}}: keys (set members) must be
// distinct blob strings, as a Lua table's keys are.
func luaTable(b *strings.Builder, v resp.Value, proto int) bool {
	step := 1
	name := "set"
	if v.Kind == resp.Map {
		step, name = 2, "map"
	}
	seen := map[string]bool{}
	b.WriteString("{" + name + "={")
	for i := 0; i < len(v.Elems); i += step {
		k := v.Elems[i]
		if k.Kind != resp.BlobString || k.Attr != nil || k.Streamed || seen[string(k.Str)] {
			return false
		}
		seen[string(k.Str)] = true
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		luaString(b, k.Str)
		b.WriteString("]=")
		if step == 1 {
			b.WriteString("true")
		} else if !luaValue(b, v.Elems[i+1], proto, false) {
			return false
		}
	}
	b.WriteString("}}")
	return true
}

// luaNumber is a Lua expression for the double a server prints as s.
func luaNumber(s string) (string, bool) {
	switch s {
	case "inf":
		return "1/0", true
	case "-inf":
		return "-1/0", true
	case "nan":
		return "0/0", true
	case "-0":
		return "-1/(1/0)", true // -(0.0) is folded to 0 in a table constructor (Redis 8.6.3, Valkey 9.1.2)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%.17g", f), true
}

// luaString writes s as a Lua string literal, every byte outside
// printable ASCII (and quotes and backslashes) as \ddd.
func luaString(b *strings.Builder, s []byte) {
	b.WriteByte('"')
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(b, "\\%03d", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
}

// hasRESP3 reports whether v holds a type RESP2 does not have.
func hasRESP3(v resp.Value) bool {
	switch v.Kind {
	case resp.SimpleString, resp.SimpleError, resp.Integer, resp.BlobString, resp.NilBlobString, resp.Array, resp.NilArray:
	default:
		return true
	}
	if v.Attr != nil {
		return true
	}
	for _, e := range v.Elems {
		if hasRESP3(e) {
			return true
		}
	}
	return false
}
