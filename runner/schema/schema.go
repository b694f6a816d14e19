// Package schema checks replies against the reply schemas the servers
// ship in their own command files (src/commands/*.json of the Redis and
// Valkey source trees, each command's "reply_schema": JSON Schema, draft
// 2019-09, as Redis's utils/req-res-log-validator.py validates them).
//
// scripts/install-schemas.sh extracts the files of each source build
// from the cached source tarballs into Dir(build). Load reads one build's
// files; Set.Check resolves a command (a container's subcommand by its
// second argument, "CLIENT LIST" → client-list.json), maps the RESP3
// reply to JSON (jsonOf) and validates it. A reply the schema rejects is
// a Finding, naming the schema path that failed.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/respcheck/respcheck/runner/servers"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Install is the script that installs the schemas.
const Install = "scripts/install-schemas.sh"

// errNotInstalled is returned by Load when a build's schemas are not in
// the cache: scripts/install-schemas.sh installs them for the builds
// built from source (redis-8.6.3, valkey-9.1.2, ...); the builds from
// binary packages (redis-7.0.15, valkey-8.0.1) have none.
var errNotInstalled = errors.New("reply schemas not installed")

// Dir is where scripts/install-schemas.sh puts a build's command files:
// ${RESPCHECK_CACHE:-~/.cache/respcheck}/schemas/<build>.
func Dir(build string) string {
	cache := os.Getenv("RESPCHECK_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "respcheck")
	}
	return filepath.Join(cache, "schemas", build)
}

// Command is one command file's command: a command, or a subcommand of a
// container.
type Command struct {
	// Name is "GET", or "CLIENT LIST" for a subcommand.
	Name string
	// File is the command file's base name ("client-list.json").
	File string
	// Arity is the command's arity as the file gives it: N > 0 is exactly
	// N arguments (the command name included), N < 0 at least -N.
	Arity int
	// Container is true for a command with subcommands (CLIENT): their
	// files hold the schemas.
	Container bool
	// Schema is the compiled reply schema, nil when the file has none.
	Schema *jsonschema.Schema
}

// Set is one build's command files.
type Set struct {
	// Build names the directory's build ("redis-8.6.3").
	Build string
	// Commands by name: "GET", "CLIENT LIST".
	Commands map[string]*Command
}

// fileEntry is the part of a command file Load reads.
type fileEntry struct {
	Arity       int             `json:"arity"`
	Container   string          `json:"container"`
	ReplySchema json.RawMessage `json:"reply_schema"`
}

// Load reads and compiles every *.json command file of dir (Dir(build)).
// A missing or empty dir is errNotInstalled (wrapped, naming dir and
// Install); a file that is not a command file or a schema that does not
// compile is an error naming the file.
func Load(dir string) (*Set, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(paths) == 0 {
		if b := filepath.Base(dir); servers.FromBinaryPackage(b) {
			// Debian's binary packages ship no command files.
			return nil, fmt.Errorf("%w for %s: it comes from a binary package, which has no command files (%s extracts them from the source tarballs of the builds built from source)", errNotInstalled, b, Install)
		}
		return nil, fmt.Errorf("%w in %s: run %s (it extracts them from the source tarballs of the builds built from source)", errNotInstalled, dir, Install)
	}
	s := &Set{Build: filepath.Base(dir), Commands: map[string]*Command{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2019)
	type pending struct {
		cmd *Command
		url string
	}
	var todo []pending
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var file map[string]fileEntry
		if err := json.Unmarshal(data, &file); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for name, e := range file {
			cmd := &Command{Name: strings.ToUpper(name), File: filepath.Base(p), Arity: e.Arity}
			if e.Container != "" {
				cmd.Name = strings.ToUpper(e.Container) + " " + cmd.Name
				s.container(strings.ToUpper(e.Container))
			}
			if old := s.Commands[cmd.Name]; old != nil {
				cmd.Container = old.Container
			}
			s.Commands[cmd.Name] = cmd
			if len(e.ReplySchema) == 0 {
				continue
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(e.ReplySchema))
			if err != nil {
				return nil, fmt.Errorf("%s: reply_schema: %w", p, err)
			}
			url := "file:///" + s.Build + "/" + cmd.File
			if err := c.AddResource(url, doc); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			todo = append(todo, pending{cmd, url})
		}
	}
	for _, t := range todo {
		sch, err := c.Compile(t.url)
		if err != nil {
			return nil, fmt.Errorf("%s: reply_schema: %w", t.cmd.File, err)
		}
		t.cmd.Schema = sch
	}
	return s, nil
}

// container marks name as a container, creating its entry if its own
// file was not read yet.
func (s *Set) container(name string) {
	if c := s.Commands[name]; c != nil {
		c.Container = true
		return
	}
	s.Commands[name] = &Command{Name: name, Container: true}
}

// Lookup resolves the command args send: the first argument, or for a
// container the first two ("CLIENT LIST"), case-insensitively. why says
// why there is none: "unknown command", "unknown subcommand", or
// "wrong number of arguments (arity N)" when args do not fit the
// command's arity (the server answers those with an error).
func (s *Set) Lookup(args [][]byte) (cmd *Command, why string) {
	if len(args) == 0 {
		return nil, "no command"
	}
	name := strings.ToUpper(string(args[0]))
	cmd = s.Commands[name]
	if cmd == nil {
		return nil, "unknown command"
	}
	if cmd.Container {
		if len(args) < 2 {
			return nil, "no subcommand"
		}
		if cmd = s.Commands[name+" "+strings.ToUpper(string(args[1]))]; cmd == nil {
			return nil, "unknown subcommand"
		}
	}
	if !fits(cmd.Arity, len(args)) {
		return cmd, fmt.Sprintf("wrong number of arguments (arity %d)", cmd.Arity)
	}
	return cmd, ""
}

// fits reports whether n arguments fit arity (0: unknown, anything fits).
func fits(arity, n int) bool {
	switch {
	case arity > 0:
		return n == arity
	case arity < 0:
		return n >= -arity
	}
	return true
}

// Names returns the commands with a reply schema, sorted.
func (s *Set) Names() []string {
	var out []string
	for n, c := range s.Commands {
		if c.Schema != nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
