package report

import (
	"encoding/json"
	"testing"
)

// TestBytesJSON: UTF-8 bytes are a plain string (NUL and CR LF included,
// escaped by JSON only), other bytes {"base64": ...}; both read back exactly.
func TestBytesJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"HSET", `"HSET"`},
		{"$3\r\na\x00b\r\n", `"$3\r\na\u0000b\r\n"`},
		{"\xff\xfe", `{"base64":"//4="}`},
		{"", `""`},
	} {
		got, err := json.Marshal(Bytes(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: %s %v, want %s", tc.in, got, err, tc.want)
		}
		var back Bytes
		if err := json.Unmarshal(got, &back); err != nil || string(back) != tc.in {
			t.Errorf("%s read back as %q %v", got, back, err)
		}
	}
}
