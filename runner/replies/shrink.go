package replies

import (
	"context"
	"slices"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
)

// shrinkRounds bounds the rounds of one finding's shrinking; each round
// judges up to shrinkWidth candidates at once, one case each.
const (
	shrinkRounds = 60
	shrinkWidth  = 16
)

// shrinkFinding replaces f.Shrunk with the smallest frame found that gives
// the same client the same verdict and rule: greedy, each round judging
// the smallest candidates (candidates, by encoded size) of the current
// frame and keeping the smallest that still gives it.
func shrinkFinding(ctx context.Context, opts Options, f *Finding) {
	var d clients.Driver
	for _, x := range opts.Drivers {
		if clients.ClientName(x, f.Proto) == f.Client {
			d = x
		}
	}
	if d == nil {
		return
	}
	// candidates get ids that answer the same command as f's frame
	// (commandOf): id mod commandPeriod stays f.Frame.ID's.
	next, cmd := 0, f.Frame.ID%commandPeriod
	judge := func(cands []Frame) (Frame, clients.StepView, bool) {
		fs := &frames{}
		var ids []int
		for _, c := range cands {
			c.ID, c.Proto = next*commandPeriod+cmd, f.Proto
			fs.put(c)
			ids = append(ids, c.ID)
			next++
		}
		plain, piped, _ := served([]clients.Driver{d})
		reps, err := serveRound(ctx, opts, fs, ids, 1, plain, piped, []int{f.Proto})
		if err != nil || len(reps) != 1 || reps[0].ServerLost != "" {
			return Frame{}, clients.StepView{}, false
		}
		crep := reps[0]
		best := -1
		var view clients.StepView
		for _, res := range crep.Results {
			for _, fst := range stepFrames(res.Steps) {
				sv := fst.sv
				if sv.Verdict == f.Verdict && sv.Rule == f.Rule && kindNoted(sv.Decisive) == f.Kind && (best < 0 || fst.id < best) {
					best, view = fst.id, *sv
				}
			}
		}
		if best < 0 {
			return Frame{}, clients.StepView{}, false
		}
		g, _ := fs.get(f.Proto, best)
		return g, view, true
	}
	cur := f.Frame
	if _, _, ok := judge([]Frame{cur}); !ok {
		return // the class needs the frames before it
	}
	f.Alone = true
	for range shrinkRounds {
		cands := candidates(cur)
		found := false
		for start := 0; start < len(cands) && !found && ctx.Err() == nil; start += shrinkWidth {
			g, view, ok := judge(cands[start:min(len(cands), start+shrinkWidth)])
			if ok {
				cur, found = g, true
				f.Notes, f.Native, f.Canary = view.Notes, view.Native, view.Canary
			}
		}
		if !found {
			break
		}
	}
	f.Shrunk = cur
}

// candidates are the frames one step smaller than f, smallest encoding
// first: without a push or without every push, without an attribute,
// with an aggregate replaced by one of its elements, with elements (map
// pairs) removed, halves kept, strings shortened, numbers simplified; a
// reply's further frames (More) are kept as they are.
func candidates(f Frame) []Frame {
	var out []Frame
	add := func(g Frame) {
		g.Class = classify(g)
		out = append(out, g)
	}
	if len(f.Pushes) > 0 {
		add(Frame{Proto: f.Proto, Reply: f.Reply, More: f.More})
		for i := range f.Pushes {
			g := f
			g.Pushes = slices.Delete(slices.Clone(f.Pushes), i, i+1)
			add(g)
		}
	}
	for _, v := range smaller(f.Reply, 0) {
		if v.Kind == resp.Push || v.Kind == resp.Attribute {
			continue
		}
		add(Frame{Proto: f.Proto, Pushes: f.Pushes, Reply: v, More: f.More})
	}
	// Each candidate is encoded once: a 363 KB frame's candidates took
	// 1.2 s to sort when the comparison encoded both.
	size := make([]int, len(out))
	idx := make([]int, len(out))
	for i := range out {
		size[i], idx[i] = len(out[i].Bytes()), i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return size[a] - size[b] })
	sorted := make([]Frame, len(out))
	for i, k := range idx {
		sorted[i] = out[k]
	}
	return sorted
}

// maxEdits bounds the edits smaller makes of one value (its elements'
// edits included), so that a wide frame does not make thousands.
const maxEdits = 200

// smaller returns values one edit smaller than v.
func smaller(v resp.Value, depth int) []resp.Value {
	var out []resp.Value
	if v.Attr != nil {
		w := v
		w.Attr = nil
		out = append(out, w)
	}
	if v.Streamed {
		w := v
		w.Streamed = false
		out = append(out, w)
	}
	switch v.Kind {
	case resp.Array, resp.Set, resp.Map, resp.Push:
		out = append(out, smallerAggregate(v, depth)...)
	case resp.BlobString, resp.SimpleString, resp.SimpleError, resp.BlobError, resp.VerbatimString:
		if len(v.Str) > 1 {
			for _, n := range []int{0, 1, len(v.Str) / 2} {
				w := v
				w.Str = v.Str[:n]
				out = append(out, w)
			}
		}
	case resp.Integer:
		if v.Int != 0 && v.Int != 1 {
			out = append(out, resp.Value{Kind: resp.Integer, Attr: v.Attr, Int: 1})
		}
	case resp.BigNumber, resp.Double:
		if string(v.Str) != "1" {
			w := v
			w.Str = []byte("1")
			out = append(out, w)
		}
	}
	if len(out) > maxEdits {
		out = out[:maxEdits]
	}
	return out
}

func smallerAggregate(v resp.Value, depth int) []resp.Value {
	step := 1
	if v.Kind == resp.Map {
		step = 2
	}
	n := len(v.Elems) / step
	with := func(elems []resp.Value) resp.Value {
		w := v
		w.Elems = elems
		return w
	}
	var out []resp.Value
	// Halves, then one element (pair) fewer, then an element in place of
	// the aggregate (a map's key or value), then one element smaller:
	// maxEdits keeps the first.
	if n > 4 {
		half := n / 2 * step
		out = append(out, with(v.Elems[:half]), with(v.Elems[half:]))
	}
	if n <= 32 {
		for i := 0; i < len(v.Elems); i += step {
			out = append(out, with(slices.Delete(slices.Clone(v.Elems), i, i+step)))
		}
	}
	for i, e := range v.Elems {
		if e.Kind != resp.Push && i < 32 {
			out = append(out, e)
		}
	}
	for i, e := range v.Elems {
		if len(out) > maxEdits {
			break
		}
		for _, s := range smaller(e, depth+1) {
			elems := slices.Clone(v.Elems)
			elems[i] = s
			out = append(out, with(elems))
		}
	}
	return out
}
