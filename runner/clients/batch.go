package clients

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// The two modes of a batch, as the adapter protocol names them.
const (
	modePipeline = "pipeline"
	modeMulti    = "multi"
)

// noBatch is the reason a "/pipeline" configuration skips a case.
const noBatch = "no pipeline or transaction in this case"

// batchGroup is a run of steps of one case connection that a "/pipeline"
// configuration sends in one library call: a run of consecutive async
// sends with the reads that read them (mode pipeline), or a MULTI … EXEC
// block of plain sends (mode multi). Nothing of another connection, and
// no step of another action, comes between its first and last step.
type batchGroup struct {
	mode  string
	conn  string
	steps []*cases.Step // every step of the group, in case order
	// sends are the steps whose commands the library sends: the async
	// sends, or MULTI, the queued commands and EXEC.
	sends []*cases.Step
}

// planBatches finds the batch groups of c, keyed by the index of their
// first step.
func planBatches(c *cases.Case) map[int]*batchGroup {
	plan := map[int]*batchGroup{}
	for i := 0; i < len(c.Steps); {
		g := multiBlock(c.Steps, i)
		if g == nil {
			g = asyncGroup(c.Steps, i)
		}
		if g == nil {
			i++
			continue
		}
		plan[i] = g
		i += len(g.steps)
	}
	return plan
}

func isWord(st *cases.Step, word string) bool {
	return st.Action == cases.ActSend && len(st.Send) == 1 && st.Send[0].IsWord(word)
}

// multiBlock returns the MULTI … EXEC block of plain sends on one
// connection that starts at steps[i], or nil.
func multiBlock(steps []*cases.Step, i int) *batchGroup {
	first := steps[i]
	if !isWord(first, "MULTI") || first.Async {
		return nil
	}
	g := &batchGroup{mode: modeMulti, conn: first.Conn, steps: []*cases.Step{first}, sends: []*cases.Step{first}}
	for _, st := range steps[i+1:] {
		if st.Action != cases.ActSend || st.Async || st.Conn != first.Conn || isWord(st, "MULTI") || isWord(st, "DISCARD") {
			return nil
		}
		g.steps, g.sends = append(g.steps, st), append(g.sends, st)
		if isWord(st, "EXEC") {
			if len(g.sends) < 3 {
				return nil // nothing queued: no transaction to run
			}
			return g
		}
	}
	return nil
}

// asyncGroup returns the run of async sends on one connection that starts
// at steps[i], up to the read that reads the last of them, or nil.
func asyncGroup(steps []*cases.Step, i int) *batchGroup {
	first := steps[i]
	if first.Action != cases.ActSend || !first.Async {
		return nil
	}
	g := &batchGroup{mode: modePipeline, conn: first.Conn}
	pending := 0
	for _, st := range steps[i:] {
		switch {
		case st.Conn != first.Conn:
			return nil
		case st.Action == cases.ActSend && st.Async:
			pending++
			g.sends = append(g.sends, st)
		case st.Action == cases.ActRead:
			pending--
		default:
			return nil
		}
		g.steps = append(g.steps, st)
		if pending == 0 {
			return g
		}
	}
	return nil
}

// batchCall is a job's batch: the commands given to the batcher (for a
// transaction, without MULTI and EXEC).
type batchCall struct {
	mode string
	cmds [][][]byte
}

// callBatch runs a batch job through the connection's batcher. Every
// command gets a value: a library that returns fewer gets an exception
// for the missing ones.
func (s *session) callBatch(c Conn, j *job) (out outcome) {
	b := j.batch
	defer func() {
		if r := recover(); r != nil {
			out.vals, out.exec = nil, nil
			out.n = panicNative(r)
		}
		for len(out.vals) < len(b.cmds) {
			n := out.n
			if n.Kind == "" {
				n = errNative("exception", "respcheck", "batch", fmt.Sprintf("the library returned %d values for %d commands", len(out.vals), len(b.cmds)))
			}
			out.vals = append(out.vals, n)
		}
	}()
	bc, ok := c.(batcher)
	if !ok {
		out.n = errNative("exception", "respcheck", "batch", fmt.Sprintf("%T has no pipeline or transaction API", c))
		return out
	}
	if b.mode == modeMulti {
		out.vals, out.exec = bc.Transaction(s.ctx, b.cmds)
	} else {
		out.vals = bc.Pipeline(s.ctx, b.cmds)
	}
	return out
}

// batch runs a group through the library's pipeline or transaction API
// and judges each command's value. ok is false when the group cannot be
// sent as one call (a command needs a capture made inside it): the caller
// runs it step by step.
func (s *session) batch(g *batchGroup) (views []StepView, ok bool) {
	cmds := make([][][]byte, len(g.sends))
	for i, st := range g.sends {
		args, err := s.args(st)
		if err != nil {
			return nil, false
		}
		cmds[i] = args
	}
	if s.dead != "" {
		return []StepView{{Step: g.steps[0], Conn: g.conn, Notes: []string{s.dead}}}, true
	}
	pc, err := s.conn(g.conn)
	if err != nil {
		return []StepView{{Step: g.steps[0], Conn: g.conn, Verdict: Crash, Rule: ruleException,
			Notes: []string{fmt.Sprintf("connection %q: %v", g.conn, err)}}}, true
	}
	given := cmds
	if g.mode == modeMulti {
		given = cmds[1 : len(cmds)-1]
	}
	j := &job{batch: &batchCall{mode: g.mode, cmds: given}, done: make(chan outcome, 1)}
	timeout := s.opts.StepTimeout
	for _, st := range g.steps {
		timeout = max(timeout, st.Timeout)
	}
	start := time.Now()
	s.queue(pc, j)
	var out outcome
	select {
	case out = <-j.done:
	case <-time.After(time.Until(start.Add(timeout))):
		out.hung = true
	case <-s.ctx.Done():
		s.abandon("skipped: the run ended")
		return []StepView{{Step: g.steps[0], Conn: g.conn, Verdict: Error, Rule: ruleNotJudged,
			Notes: []string{"not judged: " + context.Cause(s.ctx).Error()}}}, true
	}
	xs, sent := s.claimBatch(pc, j, cmds, out.hung)
	if g.mode == modeMulti {
		views = s.multiViews(g, pc, cmds, xs, sent, out)
	} else {
		views = s.pipelineViews(g, pc, cmds, xs, sent, out)
	}
	s.afterBatch(views, pc, out, timeout)
	for i := range views {
		s.capture(&views[i])
	}
	return views, true
}

// expandArgs expands a send step's command.
func expandArgs(st *cases.Step, env *cases.Env) ([][]byte, error) {
	args := make([][]byte, len(st.Send))
	for i, t := range st.Send {
		var err error
		if args[i], err = t.Expand(env); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// claimBatch finds, in order, the commands the batch call sent and their
// replies, giving the proxy a moment to record what the library returned
// before it saw.
func (s *session) claimBatch(pc *pinned, j *job, cmds [][][]byte, hung bool) ([]exchange, []bool) {
	w := s.wanted(pc, j, nil)
	for i := 0; i < 20 && !hung; i++ {
		if _, sent := s.proxy.claimSeq(w, cmds, false); !slices.Contains(sent, false) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	xs, sent := s.proxy.claimSeq(w, cmds, true)
	for i := range xs {
		if !sent[i] {
			continue
		}
		s.bind(pc, xs[i].tap)
		for k := 0; k < 20 && xs[i].pending && !hung; k++ {
			time.Sleep(10 * time.Millisecond)
			xs[i] = s.proxy.replyOf(xs[i])
		}
	}
	return xs, sent
}

// pipelineViews judges each read of a pipeline group against the reply of
// the send it reads (reads take the sends in order).
func (s *session) pipelineViews(g *batchGroup, pc *pinned, cmds [][][]byte, xs []exchange, sent []bool, out outcome) []StepView {
	var views []StepView
	k := 0
	for _, st := range g.steps {
		if st.Action != cases.ActRead {
			continue
		}
		sv := StepView{Step: st, Conn: g.conn, Args: cmds[k]}
		fillWire(&sv, xs[k])
		if out.hung {
			s.hungView(&sv, pc, len(views) == 0, xs, xs[k], sent[k])
		} else {
			n := out.vals[k]
			sv.Native = &n
			s.judge(&sv, pc, xs[k], sent[k], n)
		}
		views = append(views, sv)
		k++
	}
	return views
}

// multiViews gives a view to every step of a MULTI … EXEC block: MULTI's
// and the QUEUED replies are read by the library itself (shown, not
// judged); each queued command's value is judged against the frame the
// library took it from (see queuedFrames); EXEC's own value, if the
// library returns one, against EXEC's reply.
func (s *session) multiViews(g *batchGroup, pc *pinned, cmds [][][]byte, xs []exchange, sent []bool, out outcome) []StepView {
	last := len(cmds) - 1
	views := make([]StepView, len(cmds))
	for i, st := range g.steps {
		sv := &views[i]
		*sv = StepView{Step: st, Conn: g.conn, Args: cmds[i]}
		fillWire(sv, xs[i])
		switch {
		case out.hung:
			s.hungView(sv, pc, i == 0, xs, xs[i], sent[i])
		case i == 0:
			libraryRead(sv, sent[i], "MULTI")
		case i == last && out.exec == nil:
			libraryRead(sv, sent[i], "EXEC")
		case i == last:
			n := *out.exec
			sv.Native = &n
			s.judge(sv, pc, xs[i], sent[i], n)
		default:
			s.judgeQueued(sv, pc, i-1, xs[i], sent[i], xs[last], out)
		}
	}
	return views
}

// libraryRead marks MULTI's step, or EXEC's when the transaction API
// gives no value of EXEC's own: not judged.
func libraryRead(sv *StepView, sent bool, what string) {
	sv.Verdict = Skip
	switch {
	case !sent:
		sv.Notes = append(sv.Notes, "the library did not send "+what)
	case what == "MULTI":
		sv.Notes = append(sv.Notes, "MULTI's reply: part of the transaction API, not judged")
	default:
		sv.Notes = append(sv.Notes, "EXEC's reply: the transaction API gives no value of its own for it; its elements are judged at the queued commands' steps")
	}
}

// judgeQueued judges the value of the i-th queued command of a
// transaction where the library put it: against the i-th element of
// EXEC's array when the library reads the QUEUED replies itself (it gives
// no value of EXEC's own); otherwise against the best of its own reply
// (QUEUED or a queue-time error), the element, and EXEC's reply when it is
// not an array (an EXECABORT error or the nil of an aborted WATCH that
// the library gave each command).
func (s *session) judgeQueued(sv *StepView, pc *pinned, i int, q exchange, sent bool, exec exchange, out outcome) {
	n := out.vals[i]
	sv.Native = &n
	if exec.fault != nil && sent {
		// Which element the library took depends on how it read EXEC's
		// malformed frame.
		sv.decide(Error, ruleMalformed)
		sv.Notes = append(sv.Notes, notJudgedMalformed+exec.fault.Error())
		return
	}
	queued := "no reply"
	if q.reply != nil {
		queued = resp.Escape(q.reply.Raw)
	}
	head := "queued (" + queued + " read by the library); judged against "
	if out.exec != nil {
		head = "queued (the library gives its result for each command, and EXEC's); judged against "
	}
	type cand struct {
		x    exchange
		what string
	}
	var cands []cand
	isArray := exec.reply != nil && exec.reply.Kind == resp.Array && len(exec.reply.Elems) == len(out.vals)
	if isArray {
		e := exec.reply.Elems[i]
		cands = append(cands, cand{exchange{tap: exec.tap, cmd: exec.cmd, reply: &e}, fmt.Sprintf("element %d of EXEC's reply", i)})
	}
	if !isArray || out.exec != nil {
		cands = append(cands, cand{q, "its own reply " + queued})
		if exec.reply != nil && !isArray {
			cands = append(cands, cand{exec, "EXEC's reply " + resp.Escape(exec.reply.Raw)})
		}
	}
	var best StepView
	for k, c := range cands {
		try := StepView{Step: sv.Step, Args: sv.Args}
		s.judge(&try, pc, c.x, sent, n)
		try.Notes = append([]string{head + c.what}, try.Notes...)
		if c.x.reply != nil {
			try.Reply = bytes.Clone(c.x.reply.Raw)
		}
		if k == 0 || try.Verdict < best.Verdict {
			best = try
		}
	}
	sv.Verdict, sv.Rule, sv.Reply = best.Verdict, best.Rule, best.Reply
	sv.Notes = append(sv.Notes, best.Notes...)
}

// hungView marks a view of a batch that did not return: the first with
// what reached the library, the others skipped. When a frame the server
// sent for the batch (all its exchanges, xs) or earlier on the connection
// breaks RESP3, the first is not judged either (an error, the server's
// finding): the library may be waiting for the rest of that frame.
func (s *session) hungView(sv *StepView, pc *pinned, first bool, xs []exchange, x exchange, sent bool) {
	if !first {
		sv.Verdict = Skip
		sv.Notes = append(sv.Notes, "not judged: the batch did not return")
		return
	}
	sv.decide(Hang, ruleHang)
	for _, bx := range xs {
		if fault := hungFault(pc, bx); fault != nil {
			sv.decide(Error, ruleMalformed)
			sv.Notes = append(sv.Notes, notJudgedMalformed+fault.Error())
			break
		}
	}
	sv.Notes = append(sv.Notes, fmt.Sprintf("the batch returned no result within the deadline (%s)", s.opts.StepTimeout))
	switch {
	case x.reply != nil:
		sv.Notes = append(sv.Notes, "the server's reply had reached the library")
	case sent:
		sv.Notes = append(sv.Notes, "the server had not replied yet")
	}
}

// afterBatch sends the canary after a batch with a surprise (on the view of
// the first one), and checks the server after a crash, hang or desync.
func (s *session) afterBatch(views []StepView, pc *pinned, out outcome, timeout time.Duration) {
	pc.inMulti, pc.deferred = false, ""
	if out.hung {
		if len(views) > 0 {
			s.serverCheck(&views[0])
		}
		s.abandon("skipped: the session hung earlier")
		return
	}
	for _, n := range append(out.vals, out.n) {
		if n.Type == "adapter" && n.Err != nil && strings.Contains(n.Err.Message, " exited") {
			if len(views) > 0 {
				s.serverCheck(&views[0])
			}
			s.abandon("skipped: the library's process died in a batch")
			return
		}
	}
	for i := range views {
		if views[i].Verdict >= Mismatch && views[i].Verdict != Hang {
			s.canaryAfter(&views[i], pc, timeout)
			s.serverCheck(&views[i])
			return
		}
	}
}
