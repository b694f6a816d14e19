package cases

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// caseFile wraps the lines of one case's block ("steps", "scenario"),
// indented by 6, into a file of that one case whose first block line is on
// line 5.
func caseFile(block, lines string) string {
	return "suite: t\ncases:\n  - name: c\n    " + block + ":\n" + lines
}

// stepsFile is caseFile of step lines (each starting at column 7, "- ").
func stepsFile(steps string) string { return caseFile("steps", steps) }

// scenarioFile is caseFile of scenario lines.
func scenarioFile(lines string) string { return caseFile("scenario", lines) }

func TestLoadErrors(t *testing.T) {
	stepList := strings.Join(stepFields, ", ")
	for _, tc := range []struct {
		name string
		src  string
		want []string // without the "t.yaml:" prefix
	}{
		{"unknown step field", stepsFile("      - send: [GET, k]\n        repyl: \"+OK\\r\\n\"\n"),
			[]string{`6:9: unknown field "repyl" in step: did you mean "reply"? (want one of: ` + stepList + `)`}},
		{"misspelt send", stepsFile("      - sned: [PING]\n"),
			[]string{`5:9: unknown field "sned" in step: did you mean "send"? (want one of: ` + stepList + `)`}},
		{"unknown field far from any", stepsFile("      - send: [PING]\n        frobnicate: 1\n"),
			[]string{`6:9: unknown field "frobnicate" in step (want one of: ` + stepList + `)`}},
		{"two expectations", stepsFile("      - send: [GET, k]\n        reply: \"+OK\\r\\n\"\n        error: ERR x\n"),
			[]string{`7:9: step has both "reply" and "error"`}},
		{"two actions", stepsFile("      - {send: [GET], raw: \"GET\\r\\n\"}\n"),
			[]string{`5:23: step has both "send" and "raw"`}},
		{"no action", stepsFile("      - reply: \"+OK\\r\\n\"\n"),
			[]string{`5:9: step has no action (want one of: send, raw, read, push, sleep)`}},
		{"unknown template function", stepsFile("      - send: [GET, \"{kye}\"]\n"),
			[]string{`5:21: unknown template function "kye" (want one of: key, id, cap, var, env, gen, hex, len, xxh3, add; write {{ for a literal {)`}},
		{"bad selector", "suite: t\nrequires:\n  server: \"redsi>=8\"\ncases:\n  - name: c\n    steps:\n      - send: [PING]\n",
			[]string{`3:11: bad selector "redsi>=8": unknown term "redsi"`}},
		{"bad selector map key", stepsFile("      - send: [GET, k]\n        reply: {resp4: \"$-1\\r\\n\", resp3: \"_\\r\\n\"}\n"),
			[]string{`6:17: bad selector "resp4": unknown term "resp4"`}},
		{"bad version", "suite: t\nrequires: {server: [redis, \"valkey>=8.x\"]}\ncases:\n  - name: c\n    steps:\n      - send: [PING]\n",
			[]string{`2:28: bad selector "valkey>=8.x": bad version "8.x": want 1 to 3 dot-separated numbers`}},
		{"yaml syntax", "suite: t\ncases:\n  - name: c\n    steps:\n      - send: [GET\n        reply: x\n",
			[]string{`5:16: YAML syntax error: did not find expected ',' or ']'`}},
		{"yaml syntax, a stray token in a flow mapping", stepsFile("      - {send: [PING], reply: \"+PONG\\r\\n\"  x}\n"),
			[]string{`5:44: YAML syntax error: did not find expected ',' or '}'`}},
		{"yaml syntax, a stray token in a flow sequence", stepsFile("      - send: [PING, \"PONG\" x]\n"),
			[]string{`5:29: YAML syntax error: did not find expected ',' or ']'`}},
		{"yaml syntax, a stray token on a flow mapping's second line", stepsFile("      - {send: [PING],\n         reply: \"+PONG\\r\\n\" x}\n"),
			[]string{`6:29: YAML syntax error: did not find expected ',' or '}'`}},
		{"yaml syntax, a key out of line", stepsFile("      - send: [PING]\n        reply: \"+PONG\\r\\n\"\n       bad: x\n"),
			[]string{`7:8: YAML syntax error: did not find expected '-' indicator`}},
		{"yaml syntax, a colon in a plain value", "suite: t\ncases:\n  - name: a: b\n    steps: []\n",
			[]string{`3:12: YAML syntax error: mapping values are not allowed in this context`}},
		{"yaml syntax, an unterminated quote", "suite: t\ncases:\n  - name: \"a\n    steps: []\n",
			[]string{`3:11: YAML syntax error: found unexpected end of stream`}},
		{"tabs", "suite: t\n\tcases: []\n", []string{`2:1: YAML syntax error: a tab in the indentation: YAML indents with spaces only (found a tab character that violates indentation)`}},
		{"tab in a step", "suite: t\ncases:\n  - name: c\n    steps:\n  \t- {send: [PING]}\n", []string{`5:3: YAML syntax error: a tab in the indentation: YAML indents with spaces only (found character that cannot start any token)`}},
		{"map as a mapping", stepsFile("      - send: [X]\n        value: {map: {a: b}}\n"),
			[]string{`6:22: map must be a sequence of [key, value] pairs, such as {map: [[field, value], [other, 2]]}, not a mapping`}},
		{"duplicate key", stepsFile("      - send: [GET, k]\n        send: [SET, k, v]\n"),
			[]string{`6:9: duplicate key "send" (first at line 5)`}},
		{"duplicate top key", "suite: t\nsuite: u\ncases: []\n",
			[]string{`2:1: duplicate key "suite" (first at line 1)`, `3:8: no cases`}},
		{"missing fields", "tags: [a]\n", []string{`1:1: missing field "suite"`, `1:1: missing field "cases"`}},
		{"empty file", "", []string{`1:1: empty file (want a mapping with suite and cases)`}},
		{"two documents", "suite: t\ncases:\n  - name: c\n    steps: [{send: [PING]}]\n---\nsuite: u\n",
			[]string{`5:1: a case file holds one YAML document; found another`}},
		{"unknown file field", "suite: t\ncase: []\n",
			[]string{`1:1: missing field "cases"`, `2:1: unknown field "case" in file: did you mean "cases"? (want one of: suite, tags, requires, cases)`}},
		{"unknown case field", "suite: t\ncases:\n  - name: c\n    step: []\n",
			[]string{`3:5: missing field "steps"`, `4:5: unknown field "step" in case: did you mean "steps"? (want one of: name, tags, requires, known, exclusive, literal_keys, continue_on_failure, steps, cleanup, scenario)`}},
		{"continue_on_failure beside a case's known", "suite: t\ncases:\n  - name: c\n    continue_on_failure: true\n    known: [{server: redis, reason: r}]\n    steps: [{send: [PING]}]\n",
			[]string{`5:5: a case with continue_on_failure: true takes known differences on its steps, not on the case (one would hide every later failure)`}},
		{"continue_on_failure on a scenario", "suite: t\ncases:\n  - name: c\n    continue_on_failure: true\n    scenario: {pattern: incr-expire, iterations: 1}\n",
			[]string{`4:5: continue_on_failure does not apply to a scenario: it has no steps`}},
		{"duplicate case name", "suite: t\ncases:\n  - name: c\n    steps: [{send: [PING]}]\n  - name: c\n    steps: [{send: [PING]}]\n",
			[]string{`5:11: duplicate case name "c" (first at line 3)`}},
		{"empty steps", "suite: t\ncases:\n  - name: c\n    steps: []\n", []string{`4:12: case has no steps`}},
		{"reply not a frame", stepsFile("      - send: [PING]\n        reply: \"+PONG\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: incomplete frame (missing "\r\n"?): unexpected EOF at offset 0 in simple string (stream ended at offset 5): "+PONG"`}},
		{"reply single-quoted", stepsFile("      - send: [PING]\n        reply: '+PONG\\r\\n'\n"),
			[]string{`6:16: reply is not one complete RESP frame: incomplete frame (missing "\r\n"?): unexpected EOF at offset 0 in simple string (stream ended at offset 9): "+PONG\\r\\n" (the text holds a backslash sequence such as \r: write the reply as a double-quoted YAML string, "+OK\r\n")`}},
		{"reply two frames", stepsFile("      - send: [PING]\n        reply: \"+PONG\\r\\n+PONG\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: 7 unexpected bytes after the end of the frame: "+PONG\r\n"`}},
		{"reply wrong blob length", stepsFile("      - send: [GET, k]\n        reply: \"$3\\r\\nabcd\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: wrong length at offset 0 (blob string of length 3 has 4 bytes before its CRLF): "$3\r\nabcd\r\n"`}},
		{"reply with key, wrong length", stepsFile("      - send: [GET, k]\n        reply: \"$3\\r\\n{key}\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: wrong length at offset 0 (blob string of length 3 has 17 bytes before its CRLF): "$3\r\nrc:{2d068005}:key\r\n"`}},
		{"reply blob shorter than its length", stepsFile("      - send: [GET, k]\n        reply: \"$5\\r\\nabc\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: wrong length at offset 0 (blob string of length 5 has 3 bytes before its CRLF): "$5\r\nabc\r\n"`}},
		{"reply array one element short", stepsFile("      - send: [MGET, a, b, c]\n        reply: \"*3\\r\\n$1\\r\\na\\r\\n$1\\r\\nb\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: wrong length at offset 0 (array of 3 has 2 elements): "*3\r\n$1\r\na\r\n$1\r\nb\r\n"`}},
		{"reply payload cut short", stepsFile("      - send: [GET, k]\n        reply: \"$5\\r\\nabc\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: incomplete frame (missing "\r\n"?): unexpected EOF at offset 0 in 5-byte blob string payload (stream ended at offset 7): "$5\r\nabc"`}},
		{"reply with a bare newline", stepsFile("      - send: [PING]\n        reply: \"*1\\r\\n+PONG\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: bad line end at offset 4 bare \n in simple string: "+PONG\n" (want "\r\n" there: a bare "\n" or "\r", or a wrong length?)`}},
		{"reply with a leading zero in a length", stepsFile("      - send: [GET, k]\n        reply: \"$03\\r\\nabc\\r\\n\"\n"),
			[]string{`6:16: reply is not one complete RESP frame: bad length at offset 0 in blob string header: "$03\r\nabc\r\n"`}},
		{"reply with key, right length", stepsFile("      - send: [GET, k]\n        reply: \"$17\\r\\n{key}\\r\\n\"\n"), nil},
		{"capture used before set", stepsFile("      - send: [GET, \"{cap:x}\"]\n      - send: [GET, k]\n        capture: x\n"),
			[]string{`5:21: capture "x" is used before any step sets it`}},
		{"capture used in own step", stepsFile("      - send: [GET, k]\n        capture: x\n        reply: \"$1\\r\\n{cap:x}\\r\\n\"\n"),
			[]string{`7:16: capture "x" is used before any step sets it`}},
		{"capture on async", stepsFile("      - {send: [GET, k], async: true, capture: x}\n      - {read: true}\n"),
			[]string{`5:39: capture on an async send: put it on the read step that reads the reply`}},
		{"read without async", stepsFile("      - {conn: a, send: [BLPOP, k, 0], async: true}\n      - {read: true}\n      - {conn: a, read: true}\n"),
			[]string{`6:10: read on connection "default" with no pending async send`}},
		{"async never read", stepsFile("      - {conn: a, send: [BLPOP, k, 0], async: true}\n"),
			[]string{`5:9: the reply of this async send on connection "a" is never read (add a read step)`}},
		{"send while pending", stepsFile("      - {send: [BLPOP, k, 0], async: true}\n      - {send: [PING]}\n      - {read: true}\n"),
			[]string{`6:10: send on connection "default" while 1 async reply is pending: read it first, or make this send async too`}},
		{"async with expectation", stepsFile("      - {send: [GET, k], async: true, reply: \"+OK\\r\\n\"}\n      - {read: true}\n"),
			[]string{`5:39: an async send takes no expectation: put "reply" on the read step that reads the reply`}},
		{"async on read", stepsFile("      - {send: [GET, k], async: true}\n      - {read: true, async: true}\n"),
			[]string{`6:22: "async" is not allowed in a read step (only send and raw steps can be async)`}},
		{"read false", stepsFile("      - {read: false}\n"),
			[]string{`5:16: read must be true (omit it otherwise)`}},
		{"sleep with conn", stepsFile("      - {sleep: 1s, conn: a}\n"),
			[]string{`5:21: "conn" is not allowed in a sleep step`}},
		{"bad duration", stepsFile("      - {sleep: 5}\n      - {send: [PING], timeout: 0s}\n"),
			[]string{`5:17: bad sleep "5": want a Go duration such as 50ms, 2s or 1m30s`, `6:33: timeout must be positive`}},
		{"bad conn", stepsFile("      - {conn: \"a b\", send: [PING]}\n"),
			[]string{`5:16: bad connection name "a b": want letters, digits, '_' and '-', starting with a letter`}},
		{"null send arg", stepsFile("      - {send: [SET, k, ~]}\n"),
			[]string{`5:25: send argument is null (quote it if you mean the text "~")`}},
		{"unquoted template", stepsFile("      - {send: [GET, {key}]}\n"),
			[]string{`5:22: send argument is a YAML mapping: quote arguments that start with a brace, as in "{key}"`}},
		{"empty send", stepsFile("      - {send: []}\n"), []string{`5:16: send must not be empty`}},
		{"bare null value", stepsFile("      - send: [GET, k]\n        value: null\n"),
			[]string{`6:16: bare null is not a value: write {nil: blob} for $-1, {nil: array} for *-1 or {null: true} for _ (or quote it for a blob string)`}},
		{"bare bool and float values", stepsFile("      - send: [X]\n        value: {array: [true, 1.5]}\n"),
			[]string{`6:25: bare true: write {bool: true} for a RESP3 boolean, or quote it for a blob string`,
				`6:31: bare 1.5: write {double: "1.5"} for a double, or quote it for a blob string`}},
		{"unknown typed tag", stepsFile("      - send: [X]\n        value: {blb: x}\n"),
			[]string{`6:17: unknown field "blb" in typed value: did you mean "blob"? (want one of: ` + strings.Join(typedTags, ", ") + `)`}},
		{"selector mixed with tag", stepsFile("      - send: [X]\n        value: {resp2: x, blob: y}\n"),
			[]string{`6:27: bad selector "blob": unknown term "blob" ("blob" is a typed value tag: a mapping under value is either a selector map or a typed value, not both)`}},
		{"two typed tags", stepsFile("      - send: [X]\n        value: {blob: x, int: 1}\n"),
			[]string{`6:26: typed value has both "blob" and "int"`}},
		{"bad type name", stepsFile("      - send: [X]\n        value: {type: string}\n"),
			[]string{`6:23: unknown type "string" (want one of: ` + strings.Join(canonicalKindNames(), ", ") + `)`}},
		{"bad regexp", stepsFile("      - send: [X]\n        error_match: \"(\"\n"),
			[]string{"6:22: bad error_match regexp: error parsing regexp: missing closing ): `(`"}},
		{"bad map pair", stepsFile("      - send: [X]\n        value: {map: [[a, 1], [b]]}\n"),
			[]string{`6:31: map entry must be a [key, value] pair, not a sequence of 1`}},
		{"bad nil", stepsFile("      - send: [X]\n        value: {nil: string}\n"),
			[]string{`6:22: bad nil "string": want blob ($-1), array (*-1) or any ($-1, *-1 or RESP3's _); RESP3's null alone is {null: true}`}},
		{"bad verbatim", stepsFile("      - send: [X]\n        value: {verbatim: hello}\n"),
			[]string{`6:27: verbatim string "hello" must start with a 3-character format and ':', such as "txt:"`}},
		{"bad big", stepsFile("      - send: [X]\n        value: {big: 12x}\n"),
			[]string{`6:22: bad big number "12x": want an optional sign and decimal digits`}},
		{"attr without value", stepsFile("      - send: [X]\n        value: {attr: [[a, 1]]}\n"),
			[]string{`6:16: an attribute is written {attr: [[k, v], ...], value: VALUE} with exactly these two keys`}},
		{"error with dash", stepsFile("      - send: [X]\n        error: \"-ERR x\"\n"),
			[]string{`6:16: error "-ERR x" starts with "-": give the error text without the RESP type byte`}},
		{"error_code with spaces", stepsFile("      - send: [X]\n        error_code: ERR syntax\n"),
			[]string{`6:21: error_code "ERR syntax" must be one word (the error code, such as WRONGTYPE); use error or error_match for the text`}},
		{"any false", stepsFile("      - send: [X]\n        any: false\n"),
			[]string{`6:14: any must be true (omit it otherwise)`}},
		{"unreachable variant", stepsFile("      - send: [X]\n        expect:\n          - {reply: \":1\\r\\n\"}\n          - {when: valkey, reply: \":2\\r\\n\"}\n"),
			[]string{`8:35: unreachable expectation: an earlier one (without a selector) matches every server`}},
		{"unreachable after default", stepsFile("      - send: [X]\n        reply: {default: \":1\\r\\n\", resp2: \":2\\r\\n\"}\n"),
			[]string{`6:43: unreachable expectation: an earlier one ("default") matches every server`}},
		{"push true without expectation", stepsFile("      - {push: true}\n"),
			[]string{`5:16: push: true needs an expectation (reply, value, any, one_of or expect); or give the typed value as push: {...}`}},
		{"push with value and reply", stepsFile("      - {push: {push: [x]}, reply: \">1\\r\\n$1\\r\\nx\\r\\n\"}\n"),
			[]string{`5:29: step has both "push" and "reply" (give the push frame either as push: {typed value}, or as push: true with "reply")`}},
		{"capture on push", stepsFile("      - {push: {any: true}, capture: x}\n"),
			[]string{`5:29: "capture" is not allowed in a push step (capture on send, raw and read steps)`}},
		{"capture in probe", "suite: t\nrequires:\n  probes: [[GET, \"{cap:x}\"]]\ncases:\n  - name: c\n    steps: [{send: [PING]}]\n",
			[]string{`3:18: capture "x" used in a probe (probes run before any step)`}},
		{"proto", "suite: t\nrequires: {proto: 4, debug: yes}\ncases:\n  - name: c\n    steps: [{send: [PING]}]\n",
			[]string{`2:19: proto must be 2 or 3, not "4"`, `2:29: debug must be true or false, not "yes"`}},
		{"cluster gates", "suite: t\nrequires: {cluster: false, standalone: \" \"}\ncases:\n  - name: c\n    requires: {cluster: yes}\n    steps: [{send: [PING]}]\n  - name: d\n    requires: {cluster: true, standalone: SELECT}\n    steps: [{send: [PING]}]\n",
			[]string{`2:21: cluster: false is not a gate: write standalone: REASON (why the case cannot run on a cluster)`,
				`2:40: standalone takes the reason the case cannot run on a cluster, not " "`,
				`5:25: cluster must be true or replicas, not "yes"`,
				`8:15: requires both cluster and standalone: the case could never run`}},
		{"conn placement", stepsFile("      - {conn: {name: b}, send: [PING]}\n      - {conn: {name: b, node: other}, send: [PING]}\n      - {conn: {name: c, node: elsewhere}, send: [PING]}\n      - {conn: {node: other}, send: [PING]}\n      - {conn: {name: \"1x\", nod: a}, send: [PING]}\n"),
			[]string{`6:9: connection "b" is placed where it is first used (line 5): give node: there`,
				`7:32: unknown node "elsewhere": want owner (the primary of the case's slot), other (a primary of another shard) or replica (a replica of the owner)`,
				`8:16: conn: {...} needs a name`,
				`9:23: bad connection name "1x": want letters, digits, '_' and '-', starting with a letter`,
				`9:29: unknown field "nod" in conn: did you mean "node"? (want one of: name, node)`}},
		{"known without reason", "suite: t\ncases:\n  - name: c\n    known: [{server: valkey}]\n    steps: [{send: [PING]}]\n",
			[]string{`4:13: missing field "reason"`}},
		{"template errors", stepsFile("      - send: [\"{gen:random:5XB}\", \"{hex:abc}\", \"{len:x\", \"{cap:1x}\", \"{gen:rand:1}\", \"{key:a b}\"]\n"),
			[]string{
				`5:16: bad size in {gen:random:5XB}: unknown unit "XB" (want B, KB, MB, GB, KiB, MiB or GiB)`,
				`5:36: bad {hex:abc}: want an even number of hex digits`,
				`5:49: unterminated "{len:x" (missing "}")`,
				`5:59: bad capture name "1x" in {cap:NAME} (want an identifier)`,
				`5:71: bad "{gen:rand:1}": want {gen:random:SIZE[:SEED]} or {gen:repeat:COUNT:TEXT}`,
				`5:87: bad key name "a b" in {key:NAME} (want letters, digits, '_', '.', ':', '-')`,
			}},
		{"too large", stepsFile("      - send: [\"{gen:random:2GiB}\"]\n"),
			[]string{`5:16: bad size in {gen:random:2GiB}: 2GiB is larger than the 1073741824-byte limit`}},
		{"recursive alias", "suite: t\ncases: &a\n  - name: c\n    steps: *a\n",
			[]string{`4:12: recursive YAML alias`}},
		{"alias bomb", "suite: t\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ncases: [*f]\n",
			[]string{`2:8: document too large: more than 1000000 nodes after expanding aliases`}},
		{"tag with spaces", "suite: t\ntags: [\"a b\"]\ncases: [{name: c, steps: [{send: [PING]}]}]\n",
			[]string{`2:8: bad tag "a b": want a non-empty word without spaces`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load("t.yaml", []byte(tc.src))
			var got []string
			if err != nil {
				if f != nil {
					t.Errorf("Load returned a file and an error")
				}
				var el ErrorList
				if !errors.As(err, &el) {
					t.Fatalf("error is %T, not ErrorList", err)
				}
				for _, e := range el {
					got = append(got, strings.TrimPrefix(e.Error(), "t.yaml:"))
				}
			}
			if os.Getenv("DUMPERRS") != "" {
				t.Logf("DUMP %s %q", t.Name(), got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nsource:\n%s", diff, tc.src)
			}
		})
	}
}

func TestErrorList(t *testing.T) {
	l := ErrorList{
		{Pos: Pos{"b", 1, 1}, Msg: "x"},
		{Pos: Pos{"a", 2, 1}, Msg: "y"},
		{Pos: Pos{"a", 1, 5}, Msg: "z"},
		{Pos: Pos{"a", 0, 0}, Msg: "w"},
	}
	err := l.err()
	want := "a: w\na:1:5: z\na:2:1: y\nb:1:1: x"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Msg != "w" {
		t.Errorf("errors.As = %v", e)
	}
	if ErrorList(nil).err() != nil {
		t.Errorf("empty list is an error")
	}
}
