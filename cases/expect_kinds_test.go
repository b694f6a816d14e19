package cases

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// Every ExpectKind constant has exactly one complete entry, and every
// entry's field is unique.
func TestExpectKindsComplete(t *testing.T) {
	seen := map[ExpectKind]bool{}
	fields := map[string]bool{}
	for _, ek := range expectKinds {
		if seen[ek.kind] {
			t.Errorf("kind %d has two entries", ek.kind)
		}
		seen[ek.kind] = true
		if ek.name == "" || ek.match == nil {
			t.Errorf("kind %d: entry without a name or a matcher", ek.kind)
		}
		if ek.field == "" {
			if ek.parse != nil || ek.example != "" {
				t.Errorf("kind %s: a parser or a manual line without a YAML field", ek.name)
			}
			continue
		}
		if fields[ek.field] || ek.field == "expect" || ek.field == "when" {
			t.Errorf("kind %s: field %q is taken", ek.name, ek.field)
		}
		fields[ek.field] = true
		if ek.parse == nil || ek.example == "" || ek.doc == "" {
			t.Errorf("kind %s: entry without a parser or a manual line", ek.name)
		}
		if !strings.HasPrefix(ek.example, ek.field+":") {
			t.Errorf("kind %s: example %q is not of the field %q", ek.name, ek.example, ek.field)
		}
	}
	for k := ExpectBytes; k <= ExpectNoReply; k++ {
		if !seen[k] {
			t.Errorf("kind %d has no entry", k)
		}
	}
	if ExpectKind(0).String() != "invalid" {
		t.Errorf("the zero kind is %q", ExpectKind(0))
	}
}

// Every Action constant has exactly one complete entry, and the fields of a
// step (actions, options, expectations) are unique.
func TestActionsComplete(t *testing.T) {
	seen := map[Action]bool{}
	for _, x := range actions {
		if seen[x.action] {
			t.Errorf("action %d has two entries", x.action)
		}
		seen[x.action] = true
		if x.field == "" || x.parse == nil || x.doc == "" || !strings.HasPrefix(x.example, x.field+":") {
			t.Errorf("action %d (%q): incomplete entry", x.action, x.field)
		}
		if x.alone && (x.sends || x.readsAsync || x.capture) {
			t.Errorf("action %s stands alone but sends, reads or captures", x.field)
		}
	}
	for a := ActSend; a <= ActSleep; a++ {
		if !seen[a] {
			t.Errorf("action %d has no entry", a)
		}
	}
	for i, f := range stepFields {
		if slices.Contains(stepFields[i+1:], f) {
			t.Errorf("step field %q is declared twice", f)
		}
	}
	if !ActSend.Sends() || !ActRaw.Sends() || ActRead.Sends() || ActPush.Sends() || ActSleep.Sends() || Action(0).Sends() {
		t.Error("Sends: want send and raw only")
	}
	if Action(0).String() != "invalid" {
		t.Errorf("the zero action is %q", Action(0))
	}
}

// loadExpect loads a one-step file whose step is "send: [X]" plus the
// given expectation fields (a YAML flow mapping's contents) and returns
// the step's expectation for a RESP3 Redis.
func loadExpect(t *testing.T, fields string) *Expect {
	t.Helper()
	f, err := Load("t.yaml", []byte(stepsFile("      - {send: [X], "+fields+"}\n")))
	if err != nil {
		t.Fatalf("%s: %v", fields, err)
	}
	e, ok := f.Cases[0].Steps[0].Expect.Resolve(ServerInfo{Family: "redis", Proto: 3})
	if !ok {
		t.Fatalf("%s: no expectation", fields)
	}
	return e
}

// Each kind's matcher, golden rule and push rule, on a passing and a
// failing reply.
func TestExpectMatch(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	for _, tc := range []struct {
		fields      string
		kind        ExpectKind
		reply       string
		want        Mismatch // zero: the reply matches
		loose, push bool
	}{
		{`reply: "+OK\r\n"`, ExpectBytes, "+OK\r\n", Mismatch{}, false, false},
		{`reply: "+OK\r\n"`, ExpectBytes, "+OX\r\n",
			Mismatch{Expected: `"+OK\r\n"`, ExpectedBytes: []byte("+OK\r\n"), Offset: 2, Message: "reply differs at byte 2"}, false, false},
		{`reply: ">1\r\n+a\r\n"`, ExpectBytes, ">1\r\n+a\r\n", Mismatch{}, false, true},
		{`value: {int: 5}`, ExpectValue, ":5\r\n", Mismatch{}, false, false},
		{`value: {array: [a, {int: 5}]}`, ExpectValue, "*2\r\n$1\r\na\r\n:6\r\n",
			Mismatch{Expected: `array [blob string "a", integer 5]`, Offset: -1, Message: "[1]: want integer 5, got 6"}, false, false},
		{`value: {set_unordered: [a, b]}`, ExpectValue, "~2\r\n$1\r\nb\r\n$1\r\na\r\n", Mismatch{}, true, false},
		{`value: {push: [a]}`, ExpectValue, ">1\r\n$1\r\na\r\n", Mismatch{}, false, true},
		{`error: "ERR x"`, ExpectError, "-ERR x\r\n", Mismatch{}, false, false},
		{`error: "ERR x"`, ExpectError, "!5\r\nERR y\r\n",
			Mismatch{Expected: `error "ERR x"`, Offset: -1, Message: "error text differs"}, false, false},
		{`error: "ERR x"`, ExpectError, "+OK\r\n",
			Mismatch{Expected: `error "ERR x"`, Offset: -1, Message: "want an error, got simple string"}, false, false},
		{`error_code: WRONGTYPE`, ExpectErrorCode, "-WRONGTYPE Operation\r\n", Mismatch{}, false, false},
		{`error_code: WRONGTYPE`, ExpectErrorCode, "-ERR x\r\n",
			Mismatch{Expected: "an error with code WRONGTYPE", Offset: -1, Message: "error code is ERR"}, false, false},
		{`error_match: "^ERR u"`, ExpectErrorMatch, "-ERR unknown\r\n", Mismatch{}, false, false},
		{`error_match: "^ERR u"`, ExpectErrorMatch, "-ERR x\r\n",
			Mismatch{Expected: "an error matching /^ERR u/", Offset: -1, Message: "error text does not match"}, false, false},
		{`any: true`, ExpectAny, "-ERR x\r\n", Mismatch{}, true, false},
		{`expect: [{}]`, ExpectNotError, ":1\r\n", Mismatch{}, false, false},
		{`expect: [{}]`, ExpectNotError, "-ERR x\r\n",
			Mismatch{Expected: "any reply but an error", Offset: -1, Message: "want a reply that is not an error, got simple error"}, false, false},
		{`one_of: [{value: 1}, {error_code: WRONGTYPE}]`, ExpectOneOf, "-WRONGTYPE x\r\n", Mismatch{}, false, false},
		{`one_of: [{value: 1}, {error_code: WRONGTYPE}]`, ExpectOneOf, ":2\r\n",
			Mismatch{Expected: "one of: integer 1; an error with code WRONGTYPE", Offset: -1,
				Message: "none of 2 expectations matches (the last: want an error, got integer)"}, false, false},
		{`one_of: [{any: true}, {value: {push: [a]}}]`, ExpectOneOf, ":2\r\n", Mismatch{}, true, true},
		{`expect: closed`, ExpectClosed, "+OK\r\n",
			Mismatch{Expected: "the connection closed by the server", Offset: -1, Message: "want the server to close the connection, got a reply: simple string"}, false, false},
		{`expect: no reply within 100ms`, ExpectNoReply, "+OK\r\n",
			Mismatch{Expected: "no reply within 100ms", Offset: -1, Message: "want no reply within 100ms, got simple string"}, false, false},
	} {
		e := loadExpect(t, tc.fields)
		if e.Kind != tc.kind {
			t.Errorf("%s: kind %s, want %s", tc.fields, e.Kind, tc.kind)
			continue
		}
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Match(v, env)
		if err != nil {
			t.Errorf("%s on %q: %v", tc.fields, tc.reply, err)
			continue
		}
		switch {
		case m == nil && tc.want.Message != "":
			t.Errorf("%s on %q: matches; want %+v", tc.fields, tc.reply, tc.want)
		case m != nil && (m.Expected != tc.want.Expected || string(m.ExpectedBytes) != string(tc.want.ExpectedBytes) ||
			m.Offset != tc.want.Offset || m.Message != tc.want.Message):
			t.Errorf("%s on %q: %+v; want %+v", tc.fields, tc.reply, *m, tc.want)
		}
		if e.Loose() != tc.loose || e.AcceptsPush() != tc.push {
			t.Errorf("%s: Loose %v AcceptsPush %v; want %v %v", tc.fields, e.Loose(), e.AcceptsPush(), tc.loose, tc.push)
		}
	}
	if _, err := (&Expect{Kind: 0}).Match(resp.Value{}, env); err == nil {
		t.Error("the zero kind matched")
	}
}

// docBlock renders the manual's list of entries: each example padded to
// width, then its description, continuation lines indented to width.
func docBlock(width int, entries [][2]string) string {
	var b strings.Builder
	for _, e := range entries {
		for i, line := range strings.Split(e[1], "\n") {
			head := ""
			if i == 0 {
				head = e[0]
			}
			b.WriteString("\t" + head + strings.Repeat(" ", max(1, width-len(head))) + line + "\n")
		}
	}
	return b.String()
}

// The manual (manual.md) lists the actions and the expectation kinds
// exactly as their tables declare them (its code blocks are indented by
// four spaces where docBlock writes a tab).
func TestDocTables(t *testing.T) {
	var acts, kinds [][2]string
	for _, x := range actions {
		acts = append(acts, [2]string{x.example, x.doc})
	}
	for _, ek := range expectKinds {
		if ek.field != "" {
			kinds = append(kinds, [2]string{ek.example, ek.doc})
		}
	}
	kinds = append(kinds, [2]string{"expect: [...]", "variants (see below)"})
	for _, want := range []string{docBlock(19, acts), docBlock(28, kinds)} {
		if want = strings.ReplaceAll(want, "\t", "    "); !strings.Contains(Manual, want) {
			t.Errorf("manual.md does not hold, as it is:\n%s", want)
		}
	}
}

// TestStructuredMismatch: a typed expectation's mismatch names where the
// reply departs from it in the reply's own terms: a map's field by its
// key (ordered or not), a set's members on one side only, an element of
// a nested array by its path, and a 1 MiB blob by its lengths and both
// sides around the first differing byte.
func TestStructuredMismatch(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	mib := strings.Repeat("a", 1<<20)
	other := mib[:700000] + "b" + mib[700001:]
	for _, tc := range []struct{ fields, reply, message string }{
		{`value: {map: [[f1, v1], [f2, v3]]}`, "%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n$2\r\nv2\r\n",
			`field "f2": want blob string "v3", got "v2"`},
		{`value: {map: [[f1, v1], [f2, v3]]}`, "%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf9\r\n$2\r\nv3\r\n",
			`key #2: want blob string "f2", got "f9"`},
		{`value: {map_unordered: [[f1, v1], [f2, v3]]}`, "%2\r\n$2\r\nf2\r\n$2\r\nv2\r\n$2\r\nf1\r\n$2\r\nv1\r\n",
			`field "f2": want blob string "v3", got "v2"`},
		{`value: {map_unordered: [[f1, v1], [f2, v3]]}`, "%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf9\r\n$2\r\nv3\r\n",
			`keys only in the expectation: blob string "f2"; only in the reply: blob string "f9"`},
		{`value: {set_unordered: [a, b, c]}`, "~3\r\n$1\r\nc\r\n$1\r\nx\r\n$1\r\na\r\n",
			`only in the expectation: blob string "b"; only in the reply: blob string "x"`},
		{`value: {array: [a, {array: [b, {map: [[k, {int: 1}]]}]}]}`, "*2\r\n$1\r\na\r\n*2\r\n$1\r\nb\r\n%1\r\n$1\r\nk\r\n:2\r\n",
			`[1][1] field "k": want integer 1, got 2`},
		{`value: {blob: "` + mib + `"}`, "$1048576\r\n" + other + "\r\n",
			`want blob string of 1048576 bytes, got 1048576 bytes; from byte 700000: want …"` + strings.Repeat("a", 48) + `"…, got …"` + strings.Repeat("a", 16) + "b" + strings.Repeat("a", 31) + `"…`},
		{`value: {blob: "` + mib + `"}`, "$100\r\n" + mib[:100] + "\r\n",
			`want blob string of 1048576 bytes, got 100 bytes; from byte 100: want …"` + strings.Repeat("a", 48) + `"…, got (its end)`},
	} {
		e := loadExpect(t, tc.fields)
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Match(v, env)
		name := tc.fields[:min(len(tc.fields), 60)]
		if err != nil || m == nil {
			t.Errorf("%s: mismatch %v, error %v", name, m, err)
			continue
		}
		if m.Message != tc.message {
			t.Errorf("%s:\n got %.300s\nwant %.300s", name, m.Message, tc.message)
		}
	}
}

// TestUnorderedMismatchPairing: the items a mismatch lists as on one side
// only are those the largest pairing leaves out, duplicates and wildcards
// counted (a found review: the second "a" wanted was never named); an
// integer map key is named as an integer.
func TestUnorderedMismatchPairing(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	for _, tc := range []struct{ fields, reply, message string }{
		{`value: {set_unordered: [a, a]}`, "~2\r\n$1\r\na\r\n$1\r\nb\r\n",
			`only in the expectation: blob string "a"; only in the reply: blob string "b"`},
		{`value: {array_unordered: [{any: true}, a]}`, "*2\r\n$1\r\nb\r\n$1\r\nc\r\n",
			`only in the expectation: blob string "a"; only in the reply: blob string "c"`},
		{`value: {map_unordered: [[{any: true}, v1], [a, v2]]}`, "%2\r\n$1\r\nb\r\n$2\r\nv1\r\n$1\r\nc\r\n$2\r\nv2\r\n",
			`keys only in the expectation: blob string "a"; only in the reply: blob string "c"`},
		{`value: {map: [[{int: 7}, v1]]}`, "%1\r\n:7\r\n$2\r\nv2\r\n", `field 7: want blob string "v1", got "v2"`},
		{`value: {map: [[{bool: true}, v1]]}`, "%1\r\n#t\r\n$2\r\nv2\r\n", `field true: want blob string "v1", got "v2"`},
	} {
		e := loadExpect(t, tc.fields)
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Match(v, env)
		if err != nil || m == nil || m.Message != tc.message {
			t.Errorf("%s on %q: %+v %v\nwant %s", tc.fields, tc.reply, m, err, tc.message)
		}
	}
}

// TestUnorderedExactPairing: exact members are paired by value before the
// general matching, which must not change a verdict: a wildcard still
// takes what the exact items leave, templates and duplicates count, and a
// length that differs names the members (10,000 members: a capture's
// SMEMBERS, 30 s through the general matching alone before).
func TestUnorderedExactPairing(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}}
	big := func(n int, last string) (string, string) {
		var f, r strings.Builder
		fmt.Fprintf(&r, "*%d\r\n", n)
		f.WriteString("value: {array_unordered: [")
		for i := range 10000 {
			if i > 0 {
				f.WriteString(", ")
			}
			fmt.Fprintf(&f, "{blob: m%d}", i)
		}
		f.WriteString("]}")
		for i := n - 1; i >= 0; i-- {
			m := fmt.Sprintf("m%d", i)
			if i == 9999 {
				m = last
			}
			fmt.Fprintf(&r, "$%d\r\n%s\r\n", len(m), m)
		}
		return f.String(), r.String()
	}
	same, sameReply := big(10000, "m9999")
	_, otherReply := big(10000, "x")
	_, shortReply := big(9999, "")
	for _, tc := range []struct{ fields, reply, message string }{
		{`value: {array_unordered: [{any: true}, a, "{gen:repeat:1:b}"]}`, "*3\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n", ""},
		{`value: {array_unordered: [a, {type: blob string}, a]}`, "*3\r\n$1\r\na\r\n$1\r\nz\r\n$1\r\na\r\n", ""},
		{`value: {array_unordered: [a, a, b]}`, "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nb\r\n", `only in the expectation: blob string "a"; only in the reply: blob string "b"`},
		{`value: {map_unordered: [[f, {int: 1}], [g, {int: 2}]]}`, "%2\r\n$1\r\ng\r\n:2\r\n$1\r\nf\r\n:1\r\n", ""},
		{`value: {map_unordered: [[f, {int: 1}], [g, {int: 2}]]}`, "%2\r\n$1\r\ng\r\n:1\r\n$1\r\nf\r\n:2\r\n", `field "f": want integer 1, got 2`},
		{`value: {array_unordered: [a, b]}`, "*3\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n", `want 2 elements, got 3: only in the expectation: none; only in the reply: blob string "c"`},
		{same, sameReply, ""},
		{same, otherReply, `only in the expectation: blob string "m9999"; only in the reply: blob string "x"`},
		{same, shortReply, `want 10000 elements, got 9999: only in the expectation: blob string "m9999"; only in the reply: none`},
	} {
		e := loadExpect(t, tc.fields)
		v, err := resp.ParseExact([]byte(tc.reply))
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Match(v, env)
		switch {
		case err != nil:
			t.Errorf("%.60s: %v", tc.fields, err)
		case tc.message == "" && m != nil:
			t.Errorf("%.60s on %.60q: %s, want a match", tc.fields, tc.reply, m.Message)
		case tc.message != "" && (m == nil || m.Message != tc.message):
			t.Errorf("%.60s on %.60q: %+v\nwant %s", tc.fields, tc.reply, m, tc.message)
		}
	}
}

// TestUnorderedMessageNamesWhatWasCompared: a literal key name expected in
// an unordered reply is named as the runner renamed it, as the reply's
// items are (a review saw "only in the expectation: blob string
// \"user:1\"; only in the reply: blob string \"user:1\"").
func TestUnorderedMessageNamesWhatWasCompared(t *testing.T) {
	env := &Env{KeyPrefix: KeyPrefix("t"), Captures: map[string][]byte{}, Renamed: map[string]string{"user:1": "rc:{x}:user:1"}}
	e := loadExpect(t, `value: {array_unordered: ["user:1", b]}`)
	v, err := resp.ParseExact([]byte("*2\r\n$6\r\nuser:1\r\n$1\r\nb\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Match(v, env)
	if want := `only in the expectation: blob string "rc:{x}:user:1"; only in the reply: blob string "user:1"`; err != nil || m == nil || m.Message != want {
		t.Errorf("%+v %v\nwant %s", m, err, want)
	}
}

// TestExcludesErrors: which expectations no error reply can meet (a typed
// API that cannot send such a step loses a command the server accepts).
func TestExcludesErrors(t *testing.T) {
	for _, tc := range []struct {
		expect string
		want   bool
	}{
		{`reply: "+OK\r\n"`, true},
		{`reply: {resp2: "$-1\r\n", resp3: "_\r\n"}`, true},
		{`reply: "-ERR syntax error\r\n"`, false},
		{`reply: "!5\r\nERR x\r\n"`, false},
		{`value: {int: 1}`, true},
		{`value: {type: map}`, true},
		{`value: {error: "ERR x"}`, false},
		{`value: {any: true}`, false},
		{`value: {match: "^x"}`, false},
		{`value: {string: x}`, true},
		{`error: "ERR syntax error"`, false},
		{`error_code: ERR`, false},
		{`any: true`, false},
		{`one_of: [{reply: "+OK\r\n"}, {value: {int: 1}}]`, true},
		{`one_of: [{reply: "+OK\r\n"}, {error_code: ERR}]`, false},
		{`expect: [{when: valkey, error_code: ERR}, {when: redis, reply: "+OK\r\n"}]`, true},
		{``, true}, // no expectation: not an error
	} {
		src := "suite: s\ncases:\n  - name: c\n    steps:\n      - send: [SET, k, v]\n"
		if tc.expect != "" {
			src += "        " + tc.expect + "\n"
		}
		f, err := Load("x.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.expect, err)
		}
		st := f.Cases[0].Steps[0]
		e, ok := st.Expect.Resolve(ServerInfo{Family: "redis", Version: Version{8, 6, 3}, Proto: 3})
		if !ok {
			t.Fatalf("%s: no expectation for redis 8.6.3", tc.expect)
		}
		if got := e.ExcludesErrors(); got != tc.want {
			t.Errorf("%s: ExcludesErrors %v, want %v", tc.expect, got, tc.want)
		}
	}
}
