package clients

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// messageNative decodes the serialisation of a rueidis RedisMessage or
// valkey-go ValkeyMessage (CacheMarshal: 7 bytes of TTL, then per node a
// type byte, an 8-byte big-endian length or value, and the payload or
// children), so the library's own type of every node is reported.
func messageNative(prefix string, b []byte) Native {
	if len(b) < 7 {
		return errNative("exception", prefix, "serialisation", "short CacheMarshal output")
	}
	n, _ := decodeMessage(prefix, b[7:])
	return n
}

var messageTypes = map[byte]string{
	'$': "blob string", '+': "simple string", '-': "simple error", ':': "int64", '_': "null",
	',': "float64", '#': "boolean", '!': "blob error", '=': "verbatim string", '(': "big number",
	'*': "array", '%': "map", '~': "set", '|': "attribute", '>': "push",
}

func decodeMessage(prefix string, b []byte) (Native, []byte) {
	if len(b) < 9 {
		return errNative("exception", prefix, "serialisation", "truncated CacheMarshal output"), nil
	}
	typ := b[0]
	size := binary.BigEndian.Uint64(b[1:9])
	b = b[9:]
	name := prefix + " " + messageTypes[typ]
	if messageTypes[typ] == "" {
		name = fmt.Sprintf("%s type %q", prefix, typ)
	}
	switch typ {
	case ':':
		return textNative("int", name, strconv.FormatInt(int64(size), 10)), b
	case '#':
		return textNative("bool", name, strconv.FormatBool(size == 1)), b
	case '_':
		return Native{Kind: "nil", Type: name}, b
	case '*', '~', '%':
		if size > uint64(len(b))/9 {
			// Every child takes at least 9 bytes: the count is not trusted
			// (a truncated or corrupt serialisation would loop on it).
			return errNative("exception", name, "serialisation", "truncated CacheMarshal output"), nil
		}
		elems := make([]Native, 0, size)
		for i := uint64(0); i < size && b != nil; i++ {
			var e Native
			e, b = decodeMessage(prefix, b)
			elems = append(elems, e)
		}
		if b == nil {
			return errNative("exception", name, "serialisation", "truncated CacheMarshal output"), nil
		}
		switch typ {
		case '*':
			return Native{Kind: "list", Type: name, Elems: elems}, b
		case '~':
			return Native{Kind: "set", Type: name, Elems: elems}, b
		}
		n := Native{Kind: "map", Type: name, Pairs: make([][2]Native, 0, len(elems)/2)}
		for i := 0; i+1 < len(elems); i += 2 {
			n.Pairs = append(n.Pairs, [2]Native{elems[i], elems[i+1]})
		}
		return n, b
	}
	if uint64(len(b)) < size {
		return errNative("exception", name, "serialisation", "truncated payload"), nil
	}
	s := string(b[:size])
	b = b[size:]
	switch typ {
	case '-', '!':
		return errNative("error", name, name, s), b
	case ',':
		return textNative("float", name, s), b
	case '(':
		return textNative("bigint", name, s), b
	}
	return stringNative(name, s), b
}
