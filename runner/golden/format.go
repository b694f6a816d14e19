package golden

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// version is the format version written on each golden's "golden" line.
const version = 1

// Placeholder replaces a case's key prefix (cases.KeyPrefix, always
// cases.KeyPrefixLen bytes) in every recorded byte, so that a recording
// compares with a run of any run id. It has the same length as a prefix, so
// lengths and byte offsets are unchanged.
const Placeholder = runner.KeyPlaceholder

// InlineMax is the largest blob (sent command, reply or push) stored in
// full; a longer one is stored as its first headLen bytes, its length and
// the SHA-256 of all of it.
const InlineMax = 4096

// headLen is the number of leading bytes kept of a blob over InlineMax.
const headLen = 64

// ServerFile is the name, inside a golden directory, of the file that holds
// the server's identity and its HELLO replies.
const ServerFile = "_server.golden"

// Ext is the extension of golden files: DIR/<suite file base>.golden.
const Ext = ".golden"

// Blob is recorded bytes: all of them (Full), or for blobs over InlineMax
// their first headLen bytes, total Size and SHA-256. The SHA-256 is always of
// the whole blob after key-prefix normalisation (see Placeholder).
type Blob struct {
	Data   []byte // all the bytes, or the head when !Full()
	Size   int
	SHA256 string // hex
}

// Full reports whether b holds every byte.
func (b Blob) Full() bool { return len(b.Data) == b.Size }

// NewBlob makes a Blob from normalised bytes, keeping them whole up to
// InlineMax.
func NewBlob(b []byte) Blob {
	sum := sha256.Sum256(b)
	bl := Blob{Size: len(b), SHA256: hex.EncodeToString(sum[:])}
	if len(b) <= InlineMax {
		bl.Data = append([]byte{}, b...)
	} else {
		bl.Data = append([]byte(nil), b[:headLen]...)
	}
	return bl
}

// Equal reports whether a and b record the same bytes.
func (b Blob) Equal(o Blob) bool { return b.Size == o.Size && b.SHA256 == o.SHA256 }

// Server is the identity of a recorded server and its handshake replies.
type Server struct {
	Family, Version string // "redis", "7.0.15"
	RedisVersion    string // INFO's redis_version
	// Source is "recorded" for goldens written by respcheck record, or
	// "transcribed ..." for goldens written by hand from published transcripts.
	Source string
	// Hello2 and Hello3 are the replies to HELLO 2 and HELLO 3 (nil if
	// unknown).
	Hello2, Hello3 []byte
	// Target is the target flags respcheck record was given when it did
	// not start an installed build: "--addr 127.0.0.1:6379 --user app",
	// "-u redis://app@host:6379" (never a password), "--server-bin PATH";
	// "" for --server BUILD. The re-record command (recordCommand) names
	// it.
	Target string
	// Topology is "" for a standalone server, or "cluster 3x1" (TopologyOf)
	// for a recording of a cluster, whose bytes hold the placeholders of
	// the cluster normalisation (see cluster.go).
	Topology string
}

// TopologyOf is Server.Topology for a run's topology: "" for a standalone
// server (nil), else "cluster " and the shape (shards x fewest replicas,
// target.Topology.Shape).
func TopologyOf(t *target.Topology) string {
	if t == nil {
		return ""
	}
	return "cluster " + t.Shape()
}

// Name returns "redis 7.0.15", or "redis 8.6.3 cluster 3x1".
func (s Server) Name() string {
	if s.Topology != "" {
		return s.Family + " " + s.Version + " " + s.Topology
	}
	return s.Family + " " + s.Version
}

// IsCluster reports whether s was recorded on a cluster.
func (s Server) IsCluster() bool { return strings.HasPrefix(s.Topology, "cluster") }

// File is the golden of one case file.
type File struct {
	// Path is the case file's path as it was loaded ("suite/strings.yaml").
	Path string
	// SHA256 is the hex SHA-256 of the case file (cases.File.Hash).
	SHA256 string
	Server Server // Hello2 and Hello3 are not stored per file
	Cases  []*Case
}

// Base returns the case file's base name without extension ("strings"),
// which names the golden file.
func (f *File) Base() string { return baseOf(f.Path) }

func baseOf(p string) string {
	b := filepath.Base(filepath.ToSlash(p))
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// Find returns the recording of a case in a protocol, or nil.
func (f *File) Find(name string, proto int) *Case {
	for _, c := range f.Cases {
		if c.Name == name && c.Proto == proto {
			return c
		}
	}
	return nil
}

// Case is one case recorded in one protocol.
type Case struct {
	Name   string
	Proto  int
	Status string // pass, fail, known, skip or error (runner.Status)
	Reason string // why, for anything but pass
	// Prefix is the key prefix the case used when first recorded (a
	// later recording keeps it: see Merge).
	Prefix string
	// SHA256 is the case's cases.Case.Hash when recorded; "" in goldens
	// made before it was kept, whose cases are current only while their
	// whole file is (File.SHA256).
	SHA256 string
	Steps  []*Step
	Line   int // line in the golden file (set by Parse)
}

// Step returns the recording of step index i, or nil.
func (c *Case) Step(i int) *Step {
	for _, s := range c.Steps {
		if s.Index == i {
			return s
		}
	}
	return nil
}

// Step is one recorded step.
type Step struct {
	Index    int    // the step's index in the case
	Action   string // send, raw, read, push, sleep
	Conn     string
	Async    bool
	Volatile bool // compared by the case's expectation only
	// ByTopology is set when the step's expectation differs between a
	// cluster and a standalone server (see byTopology).
	ByTopology bool
	CaseLine   int // the step's line in the case file
	Sent       *Blob
	Pushes     []Blob // out-of-band pushes read while waiting for Reply
	Reply      *Blob
	Line       int // line of the reply (else of the step) in the golden file
}

// quote renders b with resp.Escape.
func quote(b []byte) string { return resp.Escape(b) }

// unquote reverses resp.Escape.
func unquote(s string) ([]byte, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, fmt.Errorf("want a double-quoted string, got %.40s", s)
	}
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return nil, fmt.Errorf("unescaped '\"' at %d", i)
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return nil, fmt.Errorf("trailing backslash")
		}
		switch s[i] {
		case '\\', '"':
			out = append(out, s[i])
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'x':
			if i+3 > len(s) {
				return nil, fmt.Errorf("short \\x escape")
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return nil, fmt.Errorf("bad \\x escape %q", s[i:i+3])
			}
			out = append(out, byte(v))
			i += 2
		default:
			return nil, fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return out, nil
}

func blobText(b Blob) string {
	if b.Full() {
		return quote(b.Data)
	}
	return fmt.Sprintf("size=%d sha256=%s head %s", b.Size, b.SHA256, quote(b.Data))
}

func parseBlob(s string) (Blob, error) {
	if strings.HasPrefix(s, `"`) {
		d, err := unquote(s)
		if err != nil {
			return Blob{}, err
		}
		return NewBlob(d), nil
	}
	var b Blob
	rest, ok := strings.CutPrefix(s, "size=")
	if !ok {
		return b, fmt.Errorf("want a quoted string or size=N sha256=H head \"...\"")
	}
	sz, rest, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(sz)
	if err != nil {
		return b, fmt.Errorf("bad size %q", sz)
	}
	sum, rest, _ := strings.Cut(rest, " ")
	if b.SHA256, ok = strings.CutPrefix(sum, "sha256="); !ok || len(b.SHA256) != 64 {
		return b, fmt.Errorf("bad sha256 %q", sum)
	}
	head, ok := strings.CutPrefix(rest, "head ")
	if !ok {
		return b, fmt.Errorf("want head \"...\"")
	}
	if b.Data, err = unquote(head); err != nil {
		return b, err
	}
	b.Size = n
	if len(b.Data) >= n {
		return b, fmt.Errorf("head of %d bytes for a blob of %d", len(b.Data), n)
	}
	return b, nil
}

// Marshal renders f in the golden text format (see the package doc).
func (f *File) Marshal() []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# respcheck golden: the exact bytes each step of a case file sent and\n")
	fmt.Fprintf(&w, "# received, escaped as resp.Escape does. Key prefixes read %s.\n", Placeholder)
	if strings.HasPrefix(f.Server.Source, "transcribed") {
		fmt.Fprintf(&w, "# TRANSCRIBED by hand from published transcripts, not recorded.\n")
	} else {
		fmt.Fprintf(&w, "# Written by respcheck record; do not edit. To record it again (DIR: this directory):\n")
		fmt.Fprintf(&w, "#   %s\n", recordCommand(f.Server, "DIR", []string{f.Path}, f.protos()))
	}
	fmt.Fprintf(&w, "golden %d\n", version)
	fmt.Fprintf(&w, "file %s\n", quote([]byte(f.Path)))
	fmt.Fprintf(&w, "sha256 %s\n", f.SHA256)
	fmt.Fprintf(&w, "server %s %s\n", f.Server.Family, f.Server.Version)
	if f.Server.Topology != "" {
		fmt.Fprintf(&w, "topology %s\n", f.Server.Topology)
	}
	fmt.Fprintf(&w, "source %s\n", quote([]byte(f.Server.Source)))
	for _, c := range f.Cases {
		c.marshal(&w)
	}
	return w.Bytes()
}

func (c *Case) marshal(w *bytes.Buffer) {
	fmt.Fprintf(w, "\ncase %s resp%d %s", quote([]byte(c.Name)), c.Proto, c.Status)
	if c.Reason != "" {
		fmt.Fprintf(w, " %s", quote([]byte(c.Reason)))
	}
	w.WriteByte('\n')
	if c.SHA256 != "" {
		fmt.Fprintf(w, "  sha256 %s\n", c.SHA256)
	}
	if c.Prefix != "" {
		fmt.Fprintf(w, "  prefix %s\n", quote([]byte(c.Prefix)))
	}
	for _, s := range c.Steps {
		fmt.Fprintf(w, "  step %d %s", s.Index, s.Action)
		if s.Conn != defaultConn(s.Action) {
			fmt.Fprintf(w, " conn=%s", s.Conn)
		}
		if s.CaseLine > 0 {
			fmt.Fprintf(w, " line=%d", s.CaseLine)
		}
		if s.Async {
			w.WriteString(" async")
		}
		if s.Volatile {
			w.WriteString(" volatile")
		}
		if s.ByTopology {
			w.WriteString(" topology")
		}
		w.WriteByte('\n')
		if s.Sent != nil {
			fmt.Fprintf(w, "    sent %s\n", blobText(*s.Sent))
		}
		for _, p := range s.Pushes {
			fmt.Fprintf(w, "    push %s\n", blobText(p))
		}
		if s.Reply != nil {
			fmt.Fprintf(w, "    reply %s\n", blobText(*s.Reply))
		}
	}
}

// Parse reads a golden file written by Marshal. name is used in errors.
func Parse(name string, data []byte) (*File, error) {
	f := &File{}
	var c *Case
	var st *Step
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	line := 0
	errf := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	sawVersion := false
	for sc.Scan() {
		line++
		text := sc.Text()
		trim := strings.TrimLeft(text, " ")
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if strings.ContainsRune(text, '\r') {
			// Marshal escapes every carriage return; a raw one (past the
			// \r of a CRLF line end) would not survive a round trip.
			return nil, errf("carriage return in a line")
		}
		word, rest, _ := strings.Cut(trim, " ")
		var err error
		switch word {
		case "golden":
			if rest != strconv.Itoa(version) {
				return nil, errf("golden format %q, want %d", rest, version)
			}
			sawVersion = true
		case "file":
			var p []byte
			p, err = unquote(rest)
			f.Path = string(p)
		case "sha256": // the file's before its cases, then each case's
			if c != nil {
				c.SHA256 = rest
			} else {
				f.SHA256 = rest
			}
		case "server":
			f.Server.Family, f.Server.Version, _ = strings.Cut(rest, " ")
		case "topology":
			f.Server.Topology = rest
		case "source":
			var p []byte
			p, err = unquote(rest)
			f.Server.Source = string(p)
		case "case":
			c, err = parseCaseLine(rest)
			if err == nil {
				c.Line = line
				f.Cases = append(f.Cases, c)
				st = nil
			}
		case "prefix":
			if c == nil {
				return nil, errf("prefix outside a case")
			}
			var p []byte
			p, err = unquote(rest)
			c.Prefix = string(p)
		case "step":
			if c == nil {
				return nil, errf("step outside a case")
			}
			st, err = parseStepLine(rest)
			if err == nil {
				st.Line = line
				c.Steps = append(c.Steps, st)
			}
		case "sent", "push", "reply":
			if st == nil {
				return nil, errf("%s outside a step", word)
			}
			var b Blob
			if b, err = parseBlob(rest); err != nil {
				break
			}
			switch word {
			case "sent":
				st.Sent = &b
			case "push":
				st.Pushes = append(st.Pushes, b)
			default:
				st.Reply = &b
				st.Line = line
			}
		default:
			return nil, errf("unknown line %q", word)
		}
		if err != nil {
			return nil, errf("%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !sawVersion {
		return nil, fmt.Errorf("%s: not a respcheck golden (no \"golden %d\" line)", name, version)
	}
	return f, nil
}

func parseCaseLine(rest string) (*Case, error) {
	name, rest, err := cutQuoted(rest)
	if err != nil {
		return nil, err
	}
	c := &Case{Name: name}
	fields := strings.SplitN(rest, " ", 3)
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "resp") {
		return nil, fmt.Errorf("want case \"NAME\" respN STATUS [\"REASON\"]")
	}
	if c.Proto, err = strconv.Atoi(fields[0][4:]); err != nil {
		return nil, fmt.Errorf("bad protocol %q", fields[0])
	}
	c.Status = fields[1]
	if len(fields) == 3 {
		r, err := unquote(fields[2])
		if err != nil {
			return nil, err
		}
		c.Reason = string(r)
	}
	return c, nil
}

// cutQuoted splits a leading quoted string off s.
func cutQuoted(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("want a quoted string")
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			b, err := unquote(s[:i+1])
			return string(b), strings.TrimLeft(s[i+1:], " "), err
		}
	}
	return "", "", fmt.Errorf("unterminated quoted string")
}

func parseStepLine(rest string) (*Step, error) {
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return nil, fmt.Errorf("want step N ACTION [conn=NAME] [line=N] [async] [volatile] [topology]")
	}
	st := &Step{Action: fields[1], Conn: defaultConn(fields[1])}
	var err error
	if st.Index, err = strconv.Atoi(fields[0]); err != nil {
		return nil, fmt.Errorf("bad step index %q", fields[0])
	}
	for _, fl := range fields[2:] {
		switch {
		case strings.HasPrefix(fl, "conn="):
			if st.Conn = fl[5:]; st.Conn == "" {
				return nil, fmt.Errorf("empty connection name in %q", fl)
			}
		case strings.HasPrefix(fl, "line="):
			st.CaseLine, _ = strconv.Atoi(fl[5:])
		case fl == "async":
			st.Async = true
		case fl == "volatile":
			st.Volatile = true
		case fl == "topology":
			st.ByTopology = true
		default:
			return nil, fmt.Errorf("unknown step flag %q", fl)
		}
	}
	return st, nil
}

// defaultConn is the connection of a step of action that names none: none
// for a sleep, else cases.DefaultConn.
func defaultConn(action string) string {
	if action == "sleep" {
		return ""
	}
	return cases.DefaultConn
}

// Marshal renders the directory's server file (ServerFile).
func (s Server) Marshal() []byte {
	var w bytes.Buffer
	w.WriteString("# respcheck golden: the recorded server and its HELLO replies (for respcheck serve).\n")
	fmt.Fprintf(&w, "golden %d\n", version)
	fmt.Fprintf(&w, "server %s %s\n", s.Family, s.Version)
	if s.Topology != "" {
		fmt.Fprintf(&w, "topology %s\n", s.Topology)
	}
	fmt.Fprintf(&w, "redis_version %s\n", quote([]byte(s.RedisVersion)))
	fmt.Fprintf(&w, "source %s\n", quote([]byte(s.Source)))
	if s.Target != "" {
		fmt.Fprintf(&w, "target %s\n", quote([]byte(s.Target)))
	}
	if s.Hello2 != nil {
		fmt.Fprintf(&w, "hello2 %s\n", quote(s.Hello2))
	}
	if s.Hello3 != nil {
		fmt.Fprintf(&w, "hello3 %s\n", quote(s.Hello3))
	}
	return w.Bytes()
}

func parseServer(name string, data []byte) (Server, error) {
	var s Server
	for i, text := range strings.Split(string(data), "\n") {
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		word, rest, _ := strings.Cut(text, " ")
		var err error
		var b []byte
		switch word {
		case "golden":
		case "server":
			s.Family, s.Version, _ = strings.Cut(rest, " ")
		case "topology":
			s.Topology = rest
		case "redis_version", "source", "target", "hello2", "hello3":
			b, err = unquote(rest)
			switch word {
			case "redis_version":
				s.RedisVersion = string(b)
			case "target":
				s.Target = string(b)
			case "source":
				s.Source = string(b)
			case "hello2":
				s.Hello2 = b
			default:
				s.Hello3 = b
			}
		default:
			err = fmt.Errorf("unknown line %q", word)
		}
		if err != nil {
			return s, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
	}
	return s, nil
}

// Dir is a directory of goldens: one per case file, and the server file.
type Dir struct {
	Path   string
	Server Server
	Files  map[string]*File // by Base()
}

// Sorted returns the files ordered by base name.
func (d *Dir) Sorted() []*File {
	var out []*File
	for _, f := range d.Files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Base() < out[j].Base() })
	return out
}

// FilePath returns where the golden of f lives in d.
func (d *Dir) FilePath(f *File) string { return filepath.Join(d.Path, f.Base()+Ext) }

// Load reads every *.golden file of dir.
func Load(dir string) (*Dir, error) {
	d := &Dir{Path: dir, Files: map[string]*File{}}
	names, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if filepath.Base(n) == ServerFile {
			if d.Server, err = parseServer(n, data); err != nil {
				return nil, err
			}
			continue
		}
		f, err := Parse(n, data)
		if err != nil {
			return nil, err
		}
		d.Files[f.Base()] = f
	}
	for _, f := range d.Files {
		if d.Server.Family == "" {
			d.Server.Family, d.Server.Version, d.Server.Topology = f.Server.Family, f.Server.Version, f.Server.Topology
		}
	}
	return d, nil
}

// Write writes data to path only if its content differs; it reports whether
// it wrote.
func Write(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, data, 0o644)
}

// helloID matches the "id" field of a HELLO reply and its value (the
// connection's CLIENT ID), in RESP2's flat array and RESP3's map alike.
var helloID = regexp.MustCompile(`\$2\r\nid\r\n:[0-9]+\r\n`)

// Equivalent reports whether two recordings of a server say the same: the
// same fields, and HELLO replies equal but for the connection id they
// carry (which grows with every connection a server accepted, so that a
// recording on a long-running server would otherwise always change).
func (s Server) Equivalent(o Server) bool {
	mask := func(b []byte) []byte { return helloID.ReplaceAll(b, []byte("$2\r\nid\r\n:0\r\n")) }
	return s.Family == o.Family && s.Version == o.Version && s.RedisVersion == o.RedisVersion && s.Source == o.Source &&
		s.Target == o.Target && s.Topology == o.Topology && (s.Hello2 == nil) == (o.Hello2 == nil) && (s.Hello3 == nil) == (o.Hello3 == nil) &&
		bytes.Equal(mask(s.Hello2), mask(o.Hello2)) && bytes.Equal(mask(s.Hello3), mask(o.Hello3))
}
