package golden

import (
	"bytes"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/runner"
	"github.com/respcheck/respcheck/runner/target"
)

// Normalize returns b with every occurrence of the key prefix replaced by
// Placeholder (a copy; b is not changed). An empty prefix changes nothing.
func Normalize(b []byte, prefix string) []byte {
	if prefix == "" || len(prefix) != len(Placeholder) || !bytes.Contains(b, []byte(prefix)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(prefix), []byte(Placeholder))
}

// norm is the normalisation of one case's bytes: its key prefix
// (Normalize), then on a cluster the topology's (clusterNorm, nil on a
// standalone server).
type norm struct {
	prefix string
	c      *clusterNorm
}

func newNorm(topo *target.Topology, prefix string) norm {
	return norm{prefix: prefix, c: newClusterNorm(topo, prefix)}
}

// reply normalises a reply or push to the command cmd (nil: unknown).
func (z norm) reply(b []byte, cmd [][]byte) []byte {
	b = Normalize(b, z.prefix)
	if z.c != nil {
		b = z.c.reply(b, cmd)
	}
	return b
}

// sent normalises the bytes of a sent command (or raw bytes).
func (z norm) sent(b []byte) []byte {
	b = Normalize(b, z.prefix)
	if z.c != nil {
		b = z.c.sent(b)
	}
	return b
}

// text normalises a case's reason.
func (z norm) text(s string) string {
	b := Normalize([]byte(s), z.prefix)
	if z.c != nil {
		b = z.c.text(b)
	}
	return string(b)
}

// blobOf makes the Blob of bytes kept by the runner: b whole, normalised
// by normalize, or, when the runner kept only a prefix of size bytes, that
// prefix's head (its key prefix normalised only) with sha (the runner's
// SHA-256 of the whole, key prefix normalised).
func blobOf(b []byte, size int, sha string, z norm, normalize func([]byte) []byte) *Blob {
	if size <= len(b) || sha == "" {
		bl := NewBlob(normalize(b))
		return &bl
	}
	n := Normalize(b, z.prefix)
	return &Blob{Data: append([]byte(nil), n[:min(len(n), headLen)]...), Size: size, SHA256: sha}
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
	srv := Server{Family: rep.Server.Family, Version: rep.Server.Version, RedisVersion: rep.Server.RedisVersion, Source: source,
		Topology: TopologyOf(rep.Topology)}
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
	c := &Case{Name: r.Case.Name, Proto: r.Proto, Status: r.Status.String(), Prefix: r.KeyPrefix, SHA256: r.Case.Hash}
	z := newNorm(rep.Topology, r.KeyPrefix)
	if r.Status != runner.Pass {
		c.Reason = z.text(r.Reason)
	}
	info := rep.Server.Info(r.Proto)
	info.Cluster = rep.Topology != nil
	for _, sr := range r.Steps {
		st := sr.Step
		if st == nil {
			continue
		}
		s := &Step{Index: st.Index, Action: st.Action.String(), Conn: st.Conn, Async: st.Async, CaseLine: st.Pos.Line}
		if exp, ok := st.Expect.Resolve(info); ok || len(st.Expect) == 0 {
			s.Volatile = Volatile(st, exp)
		}
		s.ByTopology = byTopology(st, info)
		if st.Action.Sends() {
			s.Sent = blobOf(sr.Sent, sr.SentSize, sr.SentSHA256, z, z.sent)
		}
		reply := func(b []byte) []byte { return z.reply(b, sr.Args) }
		for _, p := range sr.Pushes {
			s.Pushes = append(s.Pushes, *blobOf(p, len(p), "", z, reply))
		}
		if sr.Reply != nil {
			s.Reply = blobOf(sr.Reply, sr.ReplySize, sr.ReplySHA256, z, reply)
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
	if st != nil {
		// A step of several replies: any loose one (on any server) makes
		// their bytes together loose.
		for _, vs := range st.Replies {
			for _, v := range vs {
				if v.Expect.Loose() {
					return true
				}
			}
		}
	}
	return e != nil && e.Loose()
}

// byTopology reports whether step st expects one thing on a cluster and
// another on a standalone server (a cluster or standalone selector term
// picks its expectation for info's server and protocol): such a step is not
// compared between a cluster's recording and a standalone one.
func byTopology(st *cases.Step, info cases.ServerInfo) bool {
	if st == nil || len(st.Expect) == 0 {
		return false
	}
	info.Cluster = true
	a, okA := st.Expect.Resolve(info)
	info.Cluster = false
	b, okB := st.Expect.Resolve(info)
	return a != b || okA != okB
}

// MarkDiffering sets Volatile on every step of a whose reply, pushes or
// sent bytes differ from the same step of b (a second recording of the
// same server): those replies change from run to run, and so do commands
// that send a capture of such a reply (a client id, on a cluster whose
// readiness checks took more connections one time than the other). It
// returns how many it marked.
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
				if !sameReply(sa, sb) || (sa.Sent == nil) != (sb.Sent == nil) || sa.Sent != nil && !sa.Sent.Equal(*sb.Sent) {
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

// Carry completes fresh recordings with old ones: for each case of f (in
// f's order) and protocol, the fresh recording, else the old one (from
// old, nil for none), so that recording part of a file (--run, --tags,
// --proto) keeps the recordings of the rest. Old recordings of cases no
// longer in f are dropped; a kept one keeps its own sha256, so it is
// compared only while its case is unchanged.
func Carry(old, fresh *File, f *cases.File) {
	if old == nil {
		return
	}
	var out []*Case
	for _, c := range f.Cases {
		for _, proto := range []int{2, 3} {
			if fc := fresh.Find(c.Name, proto); fc != nil {
				out = append(out, fc)
			} else if oc := old.Find(c.Name, proto); oc != nil {
				out = append(out, oc)
			}
		}
	}
	fresh.Cases = out
}
