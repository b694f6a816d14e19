package resp

import "strconv"

var kindNames = [...]string{
	Invalid:        "invalid",
	SimpleString:   "simple string",
	SimpleError:    "simple error",
	Integer:        "integer",
	BlobString:     "blob string",
	NilBlobString:  "nil blob string",
	Array:          "array",
	NilArray:       "nil array",
	Null:           "null",
	Double:         "double",
	Boolean:        "boolean",
	BlobError:      "blob error",
	VerbatimString: "verbatim string",
	BigNumber:      "big number",
	Map:            "map",
	Set:            "set",
	Attribute:      "attribute",
	Push:           "push",
}

// String returns the RESP3 specification's name of the kind, such as
// "blob string" or "big number". The zero Kind is "invalid"; values outside
// the defined range render as "Kind(N)".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// kindByName inverts String for the defined kinds (used by UnmarshalJSON).
func kindByName(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s && Kind(k) != Invalid {
			return Kind(k), true
		}
	}
	return Invalid, false
}

// isAggregate reports whether values of kind k carry Elems.
func (k Kind) isAggregate() bool {
	switch k {
	case Array, Map, Set, Attribute, Push:
		return true
	}
	return false
}

// isPairs reports whether k's Elems are flattened key/value pairs.
func (k Kind) isPairs() bool { return k == Map || k == Attribute }

// Textual reports whether values of kind k carry their payload as text in
// Value.Str: simple string, simple error, blob string, blob error, verbatim
// string, integer, double, big number and boolean.
func (k Kind) Textual() bool {
	switch k {
	case SimpleString, SimpleError, BlobString, BlobError, VerbatimString,
		Integer, Double, BigNumber, Boolean:
		return true
	}
	return false
}
