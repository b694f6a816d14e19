package clients

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/respcheck/respcheck/resp"
)

// redisPyInfo is INFO's response callback parse_info: the text parsed
// into a dict, one key per "name:value" line (a value with "=" a dict of
// its items, with "," a list, else an int, a float or the text; 4.3.4
// makes a dict only of a value with both "," and "=", and keeps any other
// as text), "module" lines gathered under "modules", lines without ":"
// under "__raw__".
// Converted when the dict keeps every field: a name the text gives twice
// (the dict keeps the last) or text that is not UTF-8 (str_if_bytes
// replaces it) leaves the callback's mismatch.
var redisPyInfo = &conversion{Name: "INFO text → dict of its fields (response callback parse_info)",
	Commands: []string{"INFO"},
	Source:   "redis-py 6.4.0 redis/_parsers/helpers.py parse_info (get_value: int, float, list on \",\", dict on \"=\"); 4.3.4 redis/client.py parse_info (get_value: a dict when the value has \",\" and \"=\", else int, float or the text)",
	apply:    infoToDict}

func infoToDict(j *judger, v *resp.Value, n *Native, path *jpath) (Verdict, bool) {
	if (v.Kind != resp.BlobString && v.Kind != resp.VerbatimString) || n.Kind != "map" || !utf8.Valid(v.Str) {
		return 0, false
	}
	want := map[string]string{} // field → its value text (gathered for modules and __raw__)
	for _, line := range infoLines(string(v.Str)) {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		switch {
		case !ok:
			key, value = "__raw__", gathered
		case key == "cmdstat_host":
			key, value = line[:strings.LastIndex(line, ":")], line[strings.LastIndex(line, ":")+1:]
		case key == "module":
			key, value = "modules", gathered
		default:
			if _, twice := want[key]; twice {
				return 0, false // the dict keeps one of the two
			}
		}
		want[key] = value
	}
	if len(n.Pairs) != len(want) {
		return 0, false
	}
	for _, p := range n.Pairs {
		value, ok := want[text(&p[0])]
		if !ok {
			return 0, false
		}
		delete(want, text(&p[0]))
		if !infoValue(value, &p[1]) {
			return 0, false
		}
	}
	return Converted, true
}

// gathered stands for the value of a key parse_info gathers lines under
// (modules, __raw__): a list.
const gathered = "\x00list"

// infoLines is Python's str.splitlines for the line breaks INFO text may
// hold: CR LF, LF and CR.
func infoLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.FieldsFunc(strings.ReplaceAll(s, "\r", "\n"), func(r rune) bool { return r == '\n' })
}

// infoValue reports whether n is get_value(value) of either version: a
// dict for a value with "," and "="; for one with "=" or "," alone a dict
// or a list (6.4.0) or the text (4.3.4); else the int or float it parses
// as, or the text itself. Gathered lines are a list.
func infoValue(value string, n *Native) bool {
	comma, equals := strings.Contains(value, ","), strings.Contains(value, "=")
	switch {
	case value == gathered:
		return n.Kind == "list"
	case comma && equals:
		return n.Kind == "map"
	case equals && n.Kind == "map", comma && n.Kind == "list":
		return true
	case comma || equals:
		return (n.Kind == "string" || n.Kind == "bytes") && text(n) == value
	}
	switch n.Kind {
	case "int":
		i, err := strconv.ParseInt(value, 10, 64)
		return err == nil && text(n) == strconv.FormatInt(i, 10) || err != nil && strings.TrimSpace(value) == text(n)
	case "float":
		want, ok1 := parseFloatText(value)
		got, ok2 := parseFloatText(text(n))
		return ok1 && ok2 && want == got
	case "string", "bytes":
		return text(n) == value
	}
	return false
}
