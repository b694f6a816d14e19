package golden

import (
	"bytes"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
)

// Normalize returns b with every occurrence of the key prefix replaced by
// Placeholder (a copy; b is not changed). An empty prefix changes nothing.
func Normalize(b []byte, prefix string) []byte {
	if prefix == "" || len(prefix) != len(Placeholder) || !bytes.Contains(b, []byte(prefix)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(prefix), []byte(Placeholder))
}

// blobOf makes the Blob of bytes kept by the runner: b whole (normalised),
// or, when the runner kept only a prefix of size bytes, that prefix's head
// with sha (the runner's SHA-256 of the whole, already normalised).
func blobOf(b []byte, size int, sha, prefix string) *Blob {
	n := Normalize(b, prefix)
	if size <= len(b) || sha == "" {
		bl := NewBlob(n)
		return &bl
	}
	return &Blob{Data: append([]byte(nil), n[:min(len(n), HeadLen)]...), Size: size, SHA256: sha}
}

// FromReport builds the goldens of a run: one File per case file, in the
// order of files, each with its cases in file order, RESP2 before RESP3,
// and the steps that ran. Steps are marked volatile by Volatile (resolved
// for the recorded server).
func FromReport(rep *runner.Report, files []*cases.File, source string) []*File {
	byCase := map[*cases.Case][]*runner.Result{}
	for _, r := range rep.Results {
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	srv := Server{Family: rep.Server.Family, Version: rep.Server.Version, RedisVersion: rep.Server.RedisVersion, Source: source}
	var out []*File
	for _, f := range files {
		g := &File{Path: f.Path, SHA256: f.Hash, Server: srv}
		for _, c := range f.Cases {
			rs := byCase[c]
			for _, proto := range []int{2, 3} {
				for _, r := range rs {
					if r.Proto == proto {
						g.Cases = append(g.Cases, caseOf(rep, r))
					}
				}
			}
		}
		out = append(out, g)
	}
	return out
}

func caseOf(rep *runner.Report, r *runner.Result) *Case {
	c := &Case{Name: r.Case.Name, Proto: r.Proto, Status: r.Status.String(), Prefix: r.KeyPrefix}
	if r.Status != runner.Pass {
		c.Reason = string(Normalize([]byte(r.Reason), r.KeyPrefix))
	}
	info := cases.ServerInfo{Family: rep.Server.Family, Proto: r.Proto}
	info.Version, _ = cases.ParseVersion(rep.Server.Version)
	for _, sr := range r.Steps {
		st := sr.Step
		if st == nil {
			continue
		}
		s := &Step{Index: st.Index, Action: st.Action.String(), Conn: st.Conn, Async: st.Async, CaseLine: st.Pos.Line}
		if exp, ok := st.Expect.Resolve(info); ok || len(st.Expect) == 0 {
			s.Volatile = Volatile(st, exp)
		}
		if st.Action.Sends() {
			s.Sent = blobOf(sr.Sent, sr.SentSize, sr.SentSHA256, r.KeyPrefix)
		}
		for _, p := range sr.Pushes {
			s.Pushes = append(s.Pushes, *blobOf(p, len(p), "", r.KeyPrefix))
		}
		if sr.Reply != nil {
			s.Reply = blobOf(sr.Reply, sr.ReplySize, sr.ReplySHA256, r.KeyPrefix)
		}
		c.Steps = append(c.Steps, s)
	}
	return c
}

// Volatile reports whether a step's reply is compared by its expectation
// only, never byte for byte: the step says volatile: true, or its
// expectation e (resolved for the server) is loose by nature: any: true, or
// a typed value holding {any}, a bare {type}, a {match} pattern or an
// unordered collection anywhere. Every other step (reply, value with exact
// contents, error, error_code, error_match, and steps with no expectation)
// is compared byte for byte with the golden.
func Volatile(st *cases.Step, e *cases.Expect) bool {
	if st != nil && st.Volatile {
		return true
	}
	return e != nil && e.Loose()
}

// MarkDiffering sets Volatile on every step of a whose reply or pushes
// differ from the same step of b (a second recording of the same server):
// those replies change from run to run. It returns how many it marked.
func MarkDiffering(a, b []*File) int {
	n := 0
	bb := map[string]*File{}
	for _, f := range b {
		bb[f.Path] = f
	}
	for _, fa := range a {
		fb := bb[fa.Path]
		if fb == nil {
			continue
		}
		for _, ca := range fa.Cases {
			cb := fb.Find(ca.Name, ca.Proto)
			if cb == nil {
				continue
			}
			for _, sa := range ca.Steps {
				sb := cb.Step(sa.Index)
				if sb == nil || sa.Volatile {
					continue
				}
				if !sameReply(sa, sb) {
					sa.Volatile = true
					n++
				}
			}
		}
	}
	return n
}

func sameReply(a, b *Step) bool {
	if (a.Reply == nil) != (b.Reply == nil) || len(a.Pushes) != len(b.Pushes) {
		return false
	}
	if a.Reply != nil && !a.Reply.Equal(*b.Reply) {
		return false
	}
	for i := range a.Pushes {
		if !a.Pushes[i].Equal(b.Pushes[i]) {
			return false
		}
	}
	return true
}
