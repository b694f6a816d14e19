package resp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// MarshalJSON renders v as canonical, lossless JSON with a fixed field
// order; Raw is not included:
//
//	{"type":"<Kind.String()>"
//	 ,"format":"txt"            verbatim string only ("format_base64" if not UTF-8)
//	 ,"text":"..."              textual kinds when Str is valid UTF-8, and the
//	                            server's text of integer, double, big number
//	 ,"base64":"..."            instead of "text" when Str is not valid UTF-8
//	 ,"bool":true               boolean
//	 ,"elems":[...]             array, set, push (always present, maybe [])
//	 ,"pairs":[[k,v],...]       map, attribute (always present, maybe [])
//	 ,"streamed":true           only when Streamed
//	 ,"attr":{...}              only when an attribute was attached
//	}
//
// Numbers are never JSON numbers, so 1e400, -nan and 64-bit integers
// survive. The nil kinds and null carry "type" alone.
func (v Value) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, &v), nil
}

func appendJSON(b []byte, v *Value) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, []byte(v.Kind.String()))
	switch v.Kind {
	case SimpleString, SimpleError, BlobString, BlobError, VerbatimString,
		Integer, Double, BigNumber:
		if v.Kind == VerbatimString {
			b = appendJSONBytes(b, "format", v.Format[:])
		}
		b = appendJSONBytes(b, "text", textOf(v))
	case Boolean:
		if v.Bool {
			b = append(b, `,"bool":true`...)
		} else {
			b = append(b, `,"bool":false`...)
		}
	case Array, Set, Push:
		b = append(b, `,"elems":[`...)
		for i := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, &v.Elems[i])
		}
		b = append(b, ']')
	case Map, Attribute:
		b = append(b, `,"pairs":[`...)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendJSON(b, &v.Elems[i])
			b = append(b, ',')
			b = appendJSON(b, &v.Elems[i+1])
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	if v.Streamed {
		b = append(b, `,"streamed":true`...)
	}
	if v.Attr != nil {
		b = append(b, `,"attr":`...)
		b = appendJSON(b, v.Attr)
	}
	return append(b, '}')
}

// appendJSONBytes appends ,"<name>":"<s>" or, for invalid UTF-8,
// ,"<name or base64>":"<base64>".
func appendJSONBytes(b []byte, name string, s []byte) []byte {
	if utf8.Valid(s) {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		return appendJSONString(b, s)
	}
	if name == "text" {
		name = "base64"
	} else {
		name += "_base64"
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':', '"')
	b = base64.StdEncoding.AppendEncode(b, s)
	return append(b, '"')
}

// appendJSONString quotes valid UTF-8 s as a JSON string, escaping only
// what JSON requires (", \ and control characters).
func appendJSONString(b, s []byte) []byte {
	return appendEscaped(b, s, quoteJSON)
}

type jsonValue struct {
	Type         string    `json:"type"`
	Format       *string   `json:"format"`
	FormatBase64 []byte    `json:"format_base64"`
	Text         *string   `json:"text"`
	Base64       []byte    `json:"base64"`
	Bool         *bool     `json:"bool"`
	Elems        []Value   `json:"elems"`
	Pairs        [][]Value `json:"pairs"`
	Streamed     bool      `json:"streamed"`
	Attr         *Value    `json:"attr"`
}

var errJSON = errors.New("resp: bad JSON value")

// UnmarshalJSON inverts MarshalJSON. It validates what the wire grammar
// would: integer, double and big number text, a 3-byte verbatim format, an
// attribute of kind attribute. Raw is left nil on every node (use Append to
// get wire bytes); Float, Int and Bool are derived from the text.
func (v *Value) UnmarshalJSON(data []byte) error {
	var j jsonValue
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	k, ok := kindByName(j.Type)
	if !ok {
		return errors.Join(errJSON, errors.New("resp: unknown type "+j.Type))
	}
	out := Value{Kind: k, Streamed: j.Streamed, Attr: j.Attr}
	if out.Attr != nil && out.Attr.Kind != Attribute {
		return errors.Join(errJSON, errors.New("resp: attr of type "+out.Attr.Kind.String()))
	}
	var str []byte
	if j.Text != nil {
		str = []byte(*j.Text)
	} else if j.Base64 != nil {
		str = j.Base64
	}
	switch k {
	case SimpleString, SimpleError, BlobString, BlobError:
		if str == nil {
			str = []byte{}
		}
		out.Str = str
	case VerbatimString:
		f := j.FormatBase64
		if j.Format != nil {
			f = []byte(*j.Format)
		}
		if len(f) != 3 {
			return errors.Join(errJSON, errors.New("resp: verbatim format must be 3 bytes"))
		}
		copy(out.Format[:], f)
		if str == nil {
			str = []byte{}
		}
		out.Str = str
	case Integer:
		n, ok := parseInt(str)
		if !ok {
			return errors.Join(errJSON, errors.New("resp: bad integer text"))
		}
		out.Str, out.Int = str, n
	case Double:
		f, ok := parseDouble(str)
		if !ok {
			return errors.Join(errJSON, errors.New("resp: bad double text"))
		}
		out.Str, out.Float = str, f
	case BigNumber:
		t := str
		if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
			t = t[1:]
		}
		if len(t) == 0 || digits(t, 0) != len(t) {
			return errors.Join(errJSON, errors.New("resp: bad big number text"))
		}
		out.Str = str
	case Boolean:
		if j.Bool == nil {
			return errors.Join(errJSON, errors.New("resp: boolean without bool"))
		}
		out.Bool = *j.Bool
		out.Str = []byte{'f'}
		if out.Bool {
			out.Str[0] = 't'
		}
	case Array, Set, Push:
		out.Elems = j.Elems
	case Map, Attribute:
		for _, p := range j.Pairs {
			if len(p) != 2 {
				return errors.Join(errJSON, errors.New("resp: pair without 2 values"))
			}
			out.Elems = append(out.Elems, p[0], p[1])
		}
	}
	*v = out
	return nil
}
