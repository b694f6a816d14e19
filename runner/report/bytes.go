package report

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
)

// Bytes are raw bytes in a JSON report (a command's arguments, what was
// sent, a reply, a push): a JSON string holding exactly those bytes when
// they are valid UTF-8, else an object {"base64": "..."} with their standard
// base64 (padded), as the schemas in runner/report/schema say.
type Bytes []byte

// MarshalJSON encodes b as a string or as {"base64": ...}.
func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return json.Marshal(string(b))
	}
	return json.Marshal(struct {
		B64 string `json:"base64"`
	}{base64.StdEncoding.EncodeToString(b)})
}

// UnmarshalJSON reads either form.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = Bytes(s)
		return nil
	}
	var o struct {
		B64 string `json:"base64"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(o.B64)
	*b = raw
	return err
}

// bytesList converts byte slices for a report.
func bytesList(bs [][]byte) []Bytes {
	var out []Bytes
	for _, b := range bs {
		out = append(out, Bytes(b))
	}
	return out
}
