package cases

import (
	"slices"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"8", Version{8, 0, 0}, true},
		{"8.4", Version{8, 4, 0}, true},
		{"7.0.15", Version{7, 0, 15}, true},
		{"255.255.255", Version{255, 255, 255}, true},
		{"007.01", Version{7, 1, 0}, true},
		{"", Version{}, false},
		{"8.", Version{}, false},
		{".8", Version{}, false},
		{"8.4.0.1", Version{}, false},
		{"8.x", Version{}, false},
		{"v8", Version{}, false},
		{"8.4.0-rc1", Version{8, 4, 0}, true},
		{"9.2.0+build.7", Version{9, 2, 0}, true},
		{"8.4.0-", Version{8, 4, 0}, true},
		{"-1", Version{}, false},
		{"1234567890", Version{}, false},
	} {
		got, err := ParseVersion(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if s := (Version{8, 4, 0}).String(); s != "8.4.0" {
		t.Errorf("String = %q", s)
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []string{"0", "0.0.1", "0.1", "1", "7.0.15", "7.2", "7.2.4", "7.10", "8", "8.0.1", "8.4", "9", "10", "255.255.255"}
	for i, a := range ordered {
		for j, b := range ordered {
			va, _ := ParseVersion(a)
			vb, _ := ParseVersion(b)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := va.Compare(vb); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if (Version{8, 4, 0}).Compare(Version{8, 4}) != 0 {
		t.Error("missing parts are not zero")
	}
}

func TestSelectorMatch(t *testing.T) {
	redis := func(v string, proto int) ServerInfo {
		ver, _ := ParseVersion(v)
		return ServerInfo{Family: "redis", Version: ver, Proto: proto}
	}
	valkey := func(v string, proto int) ServerInfo {
		ver, _ := ParseVersion(v)
		return ServerInfo{Family: "valkey", Version: ver, Proto: proto}
	}
	cluster := func(info ServerInfo) ServerInfo { info.Cluster = true; return info }
	mini := func(proto int) ServerInfo {
		ver, _ := ParseVersion("8.4.0") // what miniredis v2.40.0 claims
		return ServerInfo{Family: "miniredis", Version: ver, Proto: proto}
	}
	for _, tc := range []struct {
		sel   string
		match []ServerInfo
		miss  []ServerInfo
	}{
		{"resp2", []ServerInfo{redis("7", 2), valkey("8", 2)}, []ServerInfo{redis("7", 3)}},
		{"resp3", []ServerInfo{redis("7", 3)}, []ServerInfo{valkey("8", 2)}},
		{"cluster", []ServerInfo{cluster(redis("7", 3)), cluster(valkey("9", 2))}, []ServerInfo{redis("7", 3), {}}},
		{"standalone", []ServerInfo{redis("7", 3), {}}, []ServerInfo{cluster(valkey("9", 2))}},
		{"valkey cluster resp2", []ServerInfo{cluster(valkey("9", 2))}, []ServerInfo{cluster(valkey("9", 3)), valkey("9", 2), cluster(redis("8", 2))}},
		{"default", []ServerInfo{redis("7", 3), valkey("1", 2), {}}, nil},
		{"redis", []ServerInfo{redis("1", 2), redis("99", 3)}, []ServerInfo{valkey("8", 2), {}}},
		{"valkey", []ServerInfo{valkey("8", 2)}, []ServerInfo{redis("8", 2)}},
		{"miniredis", []ServerInfo{mini(2), mini(3)}, []ServerInfo{redis("8.4.0", 2), valkey("8", 2)}},
		{"redis", []ServerInfo{redis("8.4.0", 3)}, []ServerInfo{mini(3)}},
		{"redis>=8.4", []ServerInfo{redis("8.4", 2), redis("8.4.1", 2), redis("9", 2)}, []ServerInfo{redis("8.3.99", 2), valkey("9", 2)}},
		{"redis>8.4", []ServerInfo{redis("8.4.1", 2)}, []ServerInfo{redis("8.4", 2)}},
		{"valkey<9", []ServerInfo{valkey("8.1.4", 3)}, []ServerInfo{valkey("9", 3), valkey("9.0.1", 3), redis("7", 3)}},
		{"valkey<=9", []ServerInfo{valkey("9", 3)}, []ServerInfo{valkey("9.0.1", 3)}},
		{"redis==7.0.15", []ServerInfo{redis("7.0.15", 2)}, []ServerInfo{redis("7.0.14", 2), redis("7.0", 2)}},
		{"redis==8", []ServerInfo{redis("8.0.0", 2)}, []ServerInfo{redis("8.0.1", 2)}},
		{"valkey!=8.0.1", []ServerInfo{valkey("8.0.2", 2)}, []ServerInfo{valkey("8.0.1", 2), redis("8.0.2", 2)}},
		{"redis>=7 redis<8 resp3", []ServerInfo{redis("7.4", 3)}, []ServerInfo{redis("7.4", 2), redis("8", 3), redis("6.2", 3)}},
		{"  resp2   valkey ", []ServerInfo{valkey("8", 2)}, []ServerInfo{valkey("8", 3)}},
		{"resp2 resp3", nil, []ServerInfo{valkey("8", 2), valkey("8", 3)}},
	} {
		sel, err := ParseSelector(tc.sel)
		if err != nil {
			t.Errorf("ParseSelector(%q): %v", tc.sel, err)
			continue
		}
		if sel.Text != tc.sel || sel.String() != tc.sel {
			t.Errorf("Text = %q", sel.Text)
		}
		for _, info := range tc.match {
			if !sel.Match(info) {
				t.Errorf("%q does not match %+v", tc.sel, info)
			}
		}
		for _, info := range tc.miss {
			if sel.Match(info) {
				t.Errorf("%q matches %+v", tc.sel, info)
			}
		}
	}
	// Family names match case-insensitively (the runner may pass "Redis").
	sel, _ := ParseSelector("redis")
	if !sel.Match(ServerInfo{Family: "Redis"}) {
		t.Error("family match is case-sensitive")
	}
	if !(Selector{}).Match(ServerInfo{}) || !(Selector{}).IsZero() {
		t.Error("zero selector does not match everything")
	}
}

func TestParseSelectorErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `bad selector "": empty`},
		{"   ", `bad selector "   ": empty`},
		{"redsi>=8", `bad selector "redsi>=8": unknown term "redsi"`},
		{"resp4", `bad selector "resp4": unknown term "resp4"`},
		{"Redis", `bad selector "Redis": unknown term "Redis"`},
		{">=8", `bad selector ">=8": unknown term ">=8" (want resp2, resp3, cluster, standalone, default, redis/valkey with an optional version constraint, or redis_version with one)`},
		{"redis >=8", `bad selector "redis >=8": unknown term ">=8" (want resp2, resp3, cluster, standalone, default, redis/valkey with an optional version constraint, or redis_version with one)`},
		{"redis=8", `bad selector "redis=8": bad version constraint "=8" (want one of >=, <=, ==, !=, >, < and a version)`},
		{"redis>=", `bad selector "redis>=": bad version "": want 1 to 3 dot-separated numbers`},
		{"redis>=8.x", `bad selector "redis>=8.x": bad version "8.x": want 1 to 3 dot-separated numbers`},
		{"resp2>=1", `bad selector "resp2>=1": term "resp2" takes no version constraint`},
		{"default>1", `bad selector "default>1": term "default" takes no version constraint`},
	} {
		_, err := ParseSelector(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseSelector(%q) error = %v, want %s", tc.in, err, tc.want)
		}
	}
}

// Typed value tags and selector words must be disjoint, or a mapping under
// value: would be ambiguous.
func TestSelectorWordsAndTypedTagsDisjoint(t *testing.T) {
	for _, tag := range typedTags {
		if _, err := ParseSelector(tag); err == nil {
			t.Errorf("typed tag %q parses as a selector", tag)
		}
	}
	for _, w := range selectorWords {
		if slices.Contains(typedTags, w) {
			t.Errorf("selector word %q is a typed tag", w)
		}
		if w == "redis_version" {
			w += ">=1" // takes a constraint
		}
		if _, err := ParseSelector(w); err != nil {
			t.Errorf("selector word %q: %v", w, err)
		}
	}
}
