package clients

import (
	"strings"
)

// Configuration is one client configuration for the client list: an
// available driver, or one that is not installed and why.
type Configuration struct {
	// Name is the configuration's label (Driver.Library()).
	Name string `json:"name"`
	// Library, Version, Parser, Options and API are the label's parts
	// (see ParseLabel); Version is the driver's own when it has one.
	Library string   `json:"library"`
	Version string   `json:"version,omitempty"`
	Parser  string   `json:"parser,omitempty"`
	Options []string `json:"options,omitempty"`
	Variant string   `json:"variant,omitempty"` // the label's /<api>
	// API is the call each step goes through (Driver.API).
	API string `json:"api,omitempty"`
	// Source is the package and version the library comes from.
	Source    string   `json:"source,omitempty"`
	Protos    []int    `json:"protos,omitempty"`
	Installed bool     `json:"installed"`
	Reason    string   `json:"reason,omitempty"` // why it is not installed
	Notes     []string `json:"notes,omitempty"`
}

// Label is a configuration Label split into its parts:
// <library>[-<version>][+<parser>][[<option>=<value>,...]][/<api>].
type Label struct {
	Library, Version, Parser string
	Options                  []string
	API                      string
}

// ParseLabel splits a label such as "ioredis-6.0.0[replyMapping=resp3]" or
// "redis-py-6.4.0+hiredis/pipeline": the version starts at the first "-"
// followed by a digit.
func ParseLabel(s string) Label {
	var l Label
	if i := strings.LastIndexByte(s, '/'); i >= 0 && !strings.Contains(s[i:], "]") {
		s, l.API = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		l.Options = strings.Split(s[i+1:len(s)-1], ",")
		s = s[:i]
	}
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s, l.Parser = s[:i], s[i+1:]
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '-' && s[i+1] >= '0' && s[i+1] <= '9' {
			s, l.Version = s[:i], s[i+1:]
			break
		}
	}
	l.Library = s
	return l
}

// Configurations lists every configuration: the drivers (installed), then
// one entry per note about a library that is not; a note that names an
// installed library ("ioredis-typed 6.0.0: typed DIGEST wrapper: ...") is
// that library's note.
func Configurations(ds []Driver, notes []string) []Configuration {
	var out []Configuration
	for _, d := range ds {
		l := ParseLabel(d.Library())
		out = append(out, Configuration{Name: d.Library(), Library: l.Library, Version: d.Version(), Parser: l.Parser,
			Options: l.Options, Variant: l.API, API: d.API(), Source: sourceOf(d), Protos: d.Protos(), Installed: true})
	}
	for _, n := range notes {
		name, reason, ok := strings.Cut(n, ": ")
		if !ok {
			name, reason = "", n
		}
		if i := noteOwner(out, name); i >= 0 {
			out[i].Notes = append(out[i].Notes, n)
			continue
		}
		l := ParseLabel(strings.Fields(name + " ?")[0])
		out = append(out, Configuration{Name: name, Library: l.Library, Version: l.Version, Reason: reason})
	}
	return out
}

// noteOwner is the index of the installed configuration a note's subject
// names ("ioredis-typed 6.0.0" names ioredis-typed), or -1.
func noteOwner(cs []Configuration, subject string) int {
	for i, c := range cs {
		if c.Installed && (subject == c.Name || strings.HasPrefix(subject, c.Name+" ")) {
			return i
		}
	}
	return -1
}
