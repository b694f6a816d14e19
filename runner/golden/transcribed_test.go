package golden

import (
	"flag"
	"path/filepath"
	"slices"
	"testing"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

var transcribe = flag.Bool("transcribe", false, "rewrite testdata/golden/valkey-9.2.0-rc1-transcribed from cases/suite/increx.yaml")

const transcribedDir = "../../testdata/golden/valkey-9.2.0-rc1-transcribed"

const transcribedSource = "transcribed, not recorded: no Valkey 9.2.0-rc1 server was run. INCREX replies are " +
	"those of the published valkey-cli transcripts of seed 003 (NX on an existing key [5, 0], NX on a new key " +
	"[7, 7], the non-integer and WRONGTYPE errors, [9223372036854775807, 0] at the int64 maximum), written as RESP " +
	"bytes; the other replies are the byte-exact expectations of cases/suite/increx.yaml for valkey 9.2.0; steps " +
	"without one are marked volatile and carry no reply"

// transcribedIncrex builds the golden of increx.yaml for Valkey 9.2.0-rc1
// (INFO reports 9.2.0) from the case file's own byte-exact expectations.
func transcribedIncrex(t *testing.T) (*File, Server) {
	t.Helper()
	f, err := cases.LoadFile("../../cases/suite/increx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f.Path = "suite/increx.yaml" // as the bundled suite names it
	srv := Server{Family: "valkey", Version: "9.2.0", RedisVersion: "7.2.4", Source: transcribedSource}
	g := &File{Path: f.Path, SHA256: f.Hash, Server: srv}
	ver, _ := cases.ParseVersion("9.2.0")
	for _, c := range f.Cases {
		for _, proto := range []int{2, 3} {
			info := cases.ServerInfo{Family: "valkey", Version: ver, Proto: proto}
			gc := &Case{Name: c.Name, Proto: proto, Status: "pass", Prefix: Placeholder}
			g.Cases = append(g.Cases, gc)
			skip := ""
			for _, gate := range c.Gates() {
				if !gate.MatchServer(info) {
					skip = "gates do not match valkey 9.2.0"
				}
				if slices.Contains(gate.Absent, "INCREX") {
					skip = "requires INCREX to be absent; valkey 9.2.0-rc1 has it"
				}
			}
			if skip != "" {
				gc.Status, gc.Reason = "skip", skip
				continue
			}
			env := &cases.Env{KeyPrefix: Placeholder, Captures: map[string][]byte{}}
			for _, st := range c.Steps {
				s := &Step{Index: st.Index, Action: st.Action.String(), Conn: st.Conn, Async: st.Async, CaseLine: st.Pos.Line}
				if st.Action != cases.ActSend {
					t.Fatalf("%s: transcribing handles send steps only", st.Pos)
				}
				args := make([][]byte, len(st.Send))
				for i, a := range st.Send {
					if args[i], err = a.Expand(env); err != nil {
						t.Fatal(err)
					}
				}
				sent := NewBlob(resp.AppendCommand(nil, args...))
				s.Sent = &sent
				exp, _ := st.Expect.Resolve(info)
				var reply []byte
				switch {
				case Volatile(st, exp) || exp == nil:
				case exp.Kind == cases.ExpectBytes:
					reply, err = exp.Bytes.Expand(env)
				case exp.Kind == cases.ExpectError:
					var text []byte
					text, err = exp.Text.Expand(env)
					reply = append(append([]byte("-"), text...), "\r\n"...)
				}
				if err != nil {
					t.Fatal(err)
				}
				if reply == nil {
					s.Volatile = true
				} else {
					b := NewBlob(reply)
					s.Reply = &b
				}
				gc.Steps = append(gc.Steps, s)
			}
		}
	}
	return g, srv
}

func TestTranscribedIncrex(t *testing.T) {
	g, srv := transcribedIncrex(t)
	if *transcribe {
		if _, err := Write(filepath.Join(transcribedDir, "increx"+Ext), g.Marshal()); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(filepath.Join(transcribedDir, ServerFile), srv.Marshal()); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Load(transcribedDir)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Files["increx"]
	if got == nil || got.Server.Source != transcribedSource {
		t.Fatal("the transcribed INCREX golden is missing or not marked transcribed")
	}
	if got.SHA256 != g.SHA256 {
		t.Skipf("cases/suite/increx.yaml changed since the golden was transcribed: rerun with -transcribe and check the replies against the transcripts")
	}
	if !equivalent(got, g) {
		t.Error("the transcribed golden differs from increx.yaml's expectations; rerun with -transcribe")
	}
	// The transcripts' replies, as RESP bytes.
	want := map[string]string{
		"INCREX NX on an existing key applies nothing and sets no TTL":                   "*2\r\n:5\r\n:0\r\n",
		"INCREX NX on a new key increments and sets the TTL":                             "*2\r\n:7\r\n:7\r\n",
		"INCREX past the signed 64-bit maximum answers the value and 0, where INCR errs": "*2\r\n:9223372036854775807\r\n:0\r\n",
		"INCREX on a non-integer value is the INCR error and changes nothing":            "-ERR value is not an integer or out of range\r\n",
		"INCREX on a list key is WRONGTYPE":                                              "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
	}
	for name, reply := range want {
		c := got.Find(name, 2)
		if c == nil {
			t.Errorf("no case %q", name)
			continue
		}
		found := false
		for _, s := range c.Steps {
			found = found || (s.Reply != nil && string(s.Reply.Data) == reply)
		}
		if !found {
			t.Errorf("%q: no step replies %q", name, reply)
		}
	}
}
