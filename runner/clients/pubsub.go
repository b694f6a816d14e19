package clients

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
)

// subscriber is implemented by the connections of a configuration whose
// label ends in "/pubsub": (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE steps go
// through the library's subscribe API, and each push step is judged
// against what the library delivered to the user for that frame (see
// pubsub.go and the "subscribe" and "next" ops of Adapter).
type subscriber interface {
	// Subscribe sends args, a (P|S)SUBSCRIBE or (P|S)UNSUBSCRIBE, through
	// the library's subscribe API and returns what the library gives the
	// user for it: the first confirmation it delivered (a Native of kind
	// "message"), the value the call returned (ioredis: the subscription
	// count), or kind "void" when the call returns nothing.
	Subscribe(ctx context.Context, args [][]byte) Native
	// Next returns the next item the library delivered to the user on
	// this connection (a message, a confirmation, a pong, an
	// invalidation: kind "message"). kind is the kind of the frame the
	// proxy saw ("message", "pmessage", "subscribe", "pong",
	// "invalidate", ...): a library that never delivers that kind returns
	// kind "unsupported", with why in Err, and consumes nothing. Next
	// waits at most wait: kind "none" when nothing came.
	Next(ctx context.Context, kind string, wait time.Duration) Native
}

// The Native kinds of the "/pubsub" configurations, beside Native's own.
const (
	// kindMessage is an item the library delivered: Pairs of a field
	// name (kind, channel, pattern, payload, count, keys: text Natives)
	// and its value, as the library holds it; Type is the host type
	// (redis.Message, PubSubMessage, the listener's arguments).
	kindMessage = "message"
	// kindUnsupported: the library has no API for the step (Err.Message
	// says why): a skip, nothing was sent or consumed.
	kindUnsupported = "unsupported"
	// kindNone: the library delivered nothing within the wait.
	kindNone = "none"
	// kindVoid: the subscribe call returns nothing to judge.
	kindVoid = "void"
)

// Where a "/pubsub" configuration's subscribe API runs, as a driver
// declares it (pubsubWhere).
const (
	// pubsubSame: on the case connection's own library connection
	// (rueidis and valkey-go DedicatedClient, an ioredis or node-redis
	// client per case connection).
	pubsubSame = "same"
	// pubsubOwn: on a connection of its own (go-redis PubSub, redis-py
	// pubsub()): steps before the first subscribe of that case connection
	// ran on another connection.
	pubsubOwn = "own"
	// pubsubCallback: on the case connection's, in a call that blocks
	// while subscribed and gives control back only in its callback, for a
	// message (phpredis subscribe()): a case is run only where each
	// subscribing connection's next step after its first subscribe is a
	// push step, with a send on another connection (the publish, or the
	// writes that invalidate) in between.
	pubsubCallback = "callback"
)

// noPubsub is the reason a "/pubsub" configuration skips a case.
const noPubsub = "no subscribe and no tracking in this case"

// pubsubWhere returns where d's subscribe API runs, "" when d is not a
// "/pubsub" configuration.
func pubsubWhere(d Driver) string {
	p, ok := d.(interface{ pubsubWhere() string })
	if !ok {
		return ""
	}
	return p.pubsubWhere()
}

// subscribeCommands are the commands a "/pubsub" configuration sends
// through the library's subscribe API.
var subscribeCommands = []string{"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE"}

// isSubscribeStep reports whether st sends a (P|S)(UN)SUBSCRIBE.
func isSubscribeStep(st *cases.Step) bool {
	for _, w := range subscribeCommands {
		if st.Action == cases.ActSend && len(st.Send) > 0 && st.Send[0].IsWord(w) {
			return true
		}
	}
	return false
}

// isTrackingStep reports whether st sends CLIENT TRACKING.
func isTrackingStep(st *cases.Step) bool {
	return st.Action == cases.ActSend && len(st.Send) > 1 && st.Send[0].IsWord("CLIENT") && st.Send[1].IsWord("TRACKING")
}

// pubsubSkip is why a "/pubsub" configuration whose subscribe API runs
// where (pubsubSame, pubsubOwn) skips c, or "".
func pubsubSkip(c *cases.Case, where string) string {
	any := false
	subscribed := map[string]bool{}
	for _, st := range c.Steps {
		any = any || isSubscribeStep(st) || isTrackingStep(st)
		if isSubscribeStep(st) {
			subscribed[st.Conn] = true
		}
	}
	if !any {
		return noPubsub
	}
	if where == pubsubCallback {
		return callbackSkip(c)
	}
	if where != pubsubOwn {
		return ""
	}
	early := map[string]bool{}
	for _, st := range c.Steps {
		if isSubscribeStep(st) {
			break
		}
		if st.Action == cases.ActSend || st.Action == cases.ActRaw {
			early[st.Conn] = true
		}
	}
	for name := range subscribed {
		if early[name] {
			return fmt.Sprintf("the subscribe API opens a connection of its own: the steps before connection %q subscribes would run on another connection", name)
		}
	}
	return ""
}

// callbackSkip is why a pubsubCallback configuration skips c, or "": a
// connection whose step after its first subscribe is not a push step, or
// one with no send on another connection before that push (nothing would
// make the library's callback run, and the call would never return).
func callbackSkip(c *cases.Case) string {
	waiting := map[string]bool{} // subscribed, its first push to come
	published := map[string]bool{}
	done := map[string]bool{}
	for _, st := range c.Steps {
		if st.Action == cases.ActSleep {
			continue
		}
		for name := range waiting {
			if name != st.Conn && st.Action == cases.ActSend {
				published[name] = true
			}
		}
		switch {
		case waiting[st.Conn] && st.Action == cases.ActPush && published[st.Conn]:
			// Its callback runs: the rest of its steps run there.
			delete(waiting, st.Conn)
			done[st.Conn] = true
		case waiting[st.Conn]:
			return fmt.Sprintf("the subscribe call blocks until a message runs its callback: connection %q's next step after it subscribes is not a push of a message sent meanwhile", st.Conn)
		case isSubscribeStep(st) && !done[st.Conn]:
			waiting[st.Conn] = true
		}
	}
	return ""
}

// callSub runs a subscribe or next job through the connection's
// subscriber.
func (s *session) callSub(c Conn, j *job) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out.n = panicNative(r)
		}
	}()
	sc, ok := c.(subscriber)
	if !ok {
		out.n = errNative(kindUnsupported, "respcheck", "subscribe", fmt.Sprintf("%T has no subscribe API", c))
		return out
	}
	if j.deliver != "" {
		out.n = sc.Next(s.ctx, j.deliver, j.wait)
	} else {
		out.n = sc.Subscribe(s.ctx, j.args)
	}
	return out
}

// pushStep judges a push step of a "/pubsub" configuration: it waits for
// the next out-of-band frame the proxy recorded on the case connection,
// then asks the library for what it delivered for it.
func (s *session) pushStep(sv *StepView, st *cases.Step, timeout time.Duration) {
	pc, err := s.conn(st.Conn)
	if err != nil {
		sv.decide(Crash, ruleException)
		sv.Notes = []string{fmt.Sprintf("connection %q: %v", st.Conn, err)}
		return
	}
	start := time.Now()
	frame, ok := s.nextPushFrame(pc, start.Add(timeout))
	if !ok {
		sv.Notes = append(sv.Notes, fmt.Sprintf("no out-of-band frame reached the library's connection within %v: nothing to judge", timeout))
		return
	}
	sv.Reply = frame.Raw
	kind := frameKind(frame)
	j := &job{deliver: kind, wait: max(time.Until(start.Add(timeout))-250*time.Millisecond, 50*time.Millisecond), done: make(chan outcome, 1)}
	s.queue(pc, j)
	var out outcome
	select {
	case out = <-j.done:
	case <-time.After(time.Until(start.Add(timeout))):
		sv.decide(Hang, ruleHang)
		sv.Notes = append(sv.Notes, fmt.Sprintf("the library's call for the next delivered %s did not return within %v", kind, timeout))
		s.serverCheck(sv)
		s.abandon("skipped: the session hung earlier")
		return
	case <-s.ctx.Done():
		sv.decide(Error, ruleNotJudged)
		sv.Notes = append(sv.Notes, "not judged: "+context.Cause(s.ctx).Error())
		s.abandon("skipped: the run ended")
		return
	}
	n := out.n
	sv.Native = &n
	v, notes := judgeDelivered(s.contr, frame, n)
	sv.decide(v, deliveredRule(v))
	sv.Notes = append(sv.Notes, notes...)
	if n.Type == "adapter" && n.Err != nil && strings.Contains(n.Err.Message, " exited") {
		s.serverCheck(sv)
		s.abandon("skipped: the library's process died at step " + sv.Step.Pos.String())
	}
}

// nextPushFrame waits until deadline for the next out-of-band frame on
// pc's proxied connection after those earlier push steps took: a frame
// that is no command's reply (a push, a RESP2 message, the second and
// later confirmations of one (un)subscribe command), not one the proxy
// injected.
func (s *session) nextPushFrame(pc *pinned, deadline time.Time) (resp.Value, bool) {
	for {
		if t := pc.tap; t != nil {
			if pc.pushTap != t {
				pc.pushTap, pc.pushNext = t, 0
			}
			events := t.Events()
			replies := map[int]bool{}
			for _, p := range pairEvents(events) {
				replies[p.reply] = true
			}
			for i := pc.pushNext; i < len(events); i++ {
				e := events[i]
				if e.Bad != nil {
					break
				}
				if e.Dir == ToClient && !e.Injected && !replies[i] {
					pc.pushNext = i + 1
					return e.Value, true
				}
			}
		}
		if time.Now().After(deadline) {
			return resp.Value{}, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// frameKind is the lower-case first element of an out-of-band frame
// ("message", "pmessage", "invalidate", "subscribe", "pong"), or "".
func frameKind(v resp.Value) string {
	if (v.Kind != resp.Push && v.Kind != resp.Array) || len(v.Elems) == 0 || !v.Elems[0].Kind.Textual() {
		return ""
	}
	return strings.ToLower(string(v.Elems[0].Str))
}

// invalidateChannel is the channel of RESP2 invalidation messages
// (CLIENT TRACKING ... REDIRECT to a subscribed connection).
const invalidateChannel = "__redis__:invalidate"

// frameFields names the elements of an out-of-band frame by the field a
// library delivers them as: message and smessage [kind, channel,
// payload], pmessage [kind, pattern, channel, payload], a confirmation
// [kind, channel, count], pong [kind, payload], invalidate [kind, keys].
// asInvalidate reads a RESP2 message on __redis__:invalidate as the
// invalidation it carries (keys: its payload).
func frameFields(v resp.Value, asInvalidate bool) map[string]resp.Value {
	kind := frameKind(v)
	names := map[string][]string{
		"message": {"channel", "payload"}, "smessage": {"channel", "payload"},
		"pmessage": {"pattern", "channel", "payload"}, "pong": {"payload"}, "invalidate": {"keys"},
	}[kind]
	if _, _, conf := subscribeFamily(kind); conf {
		names = []string{"channel", "count"}
	}
	out := map[string]resp.Value{}
	if asInvalidate {
		// The channel is the invalidation itself: only the keys are
		// judged.
		if len(v.Elems) > 2 {
			out["keys"] = v.Elems[2]
		}
		return out
	}
	for i, name := range names {
		if i+1 < len(v.Elems) {
			out[name] = v.Elems[i+1]
		}
	}
	return out
}

// judgeDelivered judges what a library delivered (n) for an out-of-band
// frame: its kind, if it reports one, must be the frame's; each field the
// frame carries is judged with the library's contract against its
// element (a field the library does not deliver: a mismatch, except the
// subscription count, which is erased). A library that reports an
// invalidation key by key ("key" instead of "keys") is judged against the
// first key of the frame.
func judgeDelivered(c *contract, frame resp.Value, n Native) (Verdict, []string) {
	switch n.Kind {
	case kindUnsupported, kindVoid:
		return Skip, []string{"not judged: " + errText(n)}
	case kindNone:
		return Hang, []string{"the frame reached the library, which delivered nothing for it within the deadline"}
	case "exception":
		return Crash, []string{"the library raised instead of delivering the frame: " + n.String()}
	case kindMessage:
	default:
		return Mismatch, []string{"the library delivered " + n.String() + ", not a message"}
	}
	got := map[string]Native{}
	for _, p := range n.Pairs {
		if p[0].Text != nil {
			got[*p[0].Text] = p[1]
		}
	}
	kind := frameKind(frame)
	k, hasKind := got["kind"]
	asInvalidate := hasKind && k.Text != nil && *k.Text == "invalidate" && kind == "message" &&
		len(frame.Elems) > 1 && string(frame.Elems[1].Str) == invalidateChannel
	v, notes := Match, []string(nil)
	plain := frame.Kind != resp.Push && frame.Kind != resp.Array
	if hasKind && !asInvalidate && !plain && (k.Text == nil || !strings.EqualFold(*k.Text, kind)) {
		v = Mismatch
		notes = append(notes, fmt.Sprintf("kind: the library delivered %s for a %q frame", k.String(), kind))
	}
	fields := frameFields(frame, asInvalidate)
	if keys, ok := fields["keys"]; ok {
		if _, one := got["key"]; one {
			// A library that reports one key per event (node-redis's
			// clientSideCache): judged against the first key, or the null
			// of the whole cache.
			delete(fields, "keys")
			switch {
			case keys.Kind == resp.Array && len(keys.Elems) > 0:
				fields["key"] = keys.Elems[0]
				if len(keys.Elems) > 1 {
					notes = append(notes, fmt.Sprintf("key: the library reports one key per event; the frame has %d, judged against the first", len(keys.Elems)))
				}
			default:
				fields["key"] = keys
			}
		}
	}
	if plain {
		// A plain reply delivered as an item (a RESP3 PING's +PONG as
		// go-redis's *redis.Pong): its payload is the whole frame.
		fields = map[string]resp.Value{"payload": frame}
	}
	for _, name := range []string{"pattern", "channel", "payload", "count", "keys", "key"} {
		e, ok := fields[name]
		if !ok {
			continue
		}
		f, ok := got[name]
		if !ok {
			fv := Mismatch
			if name == "count" {
				fv = Erased
			}
			v = max(v, fv)
			notes = append(notes, fmt.Sprintf("%s: the library does not deliver it (%s)", name, resp.Escape(e.Raw)))
			continue
		}
		fv, fn := c.JudgeFrames([]resp.Value{e}, f)
		v = max(v, fv)
		for _, note := range fn {
			notes = append(notes, name+": "+note)
		}
		if fv >= Mismatch && len(fn) == 0 {
			notes = append(notes, fmt.Sprintf("%s: %s for %s", name, f.String(), resp.Escape(e.Raw)))
		}
	}
	return v, notes
}

// judgeSubscribe judges the value of a subscribe step of a "/pubsub"
// configuration: a delivered confirmation against the first confirmation
// (the reply), a number against the count of the last one (the
// subscription count after the call), anything else as a reply.
func (s *session) judgeSubscribe(sv *StepView, pc *pinned, x exchange, sent bool, n Native) {
	if !sent || x.reply == nil || (x.reply.Kind == resp.SimpleError || x.reply.Kind == resp.BlobError) {
		s.judge(sv, pc, x, sent, n)
		return
	}
	switch n.Kind {
	case kindMessage, kindUnsupported, kindVoid, kindNone:
		sv.Verdict, sv.Notes = judgeDelivered(s.contr, *x.reply, n)
		sv.Rule = deliveredRule(sv.Verdict)
		if n.Kind == kindMessage {
			sv.Notes = append([]string{"judged: the item the library delivered for the call (" + n.Type + ")"}, sv.Notes...)
		}
	case "int", "number", "bigint":
		last := *x.reply
		if len(x.more) > 0 {
			last = x.more[len(x.more)-1]
		}
		if len(last.Elems) < 3 {
			s.judge(sv, pc, x, sent, n)
			return
		}
		sv.Verdict, sv.Notes, sv.Rule = s.contr.JudgeCommand(s.ctx, s.it.proto, nil, []resp.Value{last.Elems[2]}, n)
		sv.Notes = append([]string{"the call's value: the subscription count of the last confirmation, " + resp.Escape(last.Elems[2].Raw)}, sv.Notes...)
	default:
		s.judge(sv, pc, x, sent, n)
	}
}

// errText is the message of n's Err, or n itself.
func errText(n Native) string {
	if n.Err != nil {
		return n.Err.Message
	}
	return n.String()
}

// deliveries is the queue of what a library delivered to the user on one
// connection (its message and subscription callbacks, or its receive
// loop), read by Next in order.
type deliveries struct {
	mu    sync.Mutex
	items []Native
	more  chan struct{}
}

func newDeliveries() *deliveries { return &deliveries{more: make(chan struct{}, 1)} }

// put appends an item the library delivered.
func (d *deliveries) put(n Native) {
	d.mu.Lock()
	d.items = append(d.items, n)
	d.mu.Unlock()
	select {
	case d.more <- struct{}{}:
	default:
	}
}

// take returns the first item whose kind field satisfies ok, waiting up
// to wait; kind "none" when none came.
func (d *deliveries) take(ctx context.Context, wait time.Duration, ok func(kind string) bool) Native {
	deadline := time.After(wait)
	for {
		d.mu.Lock()
		for i, n := range d.items {
			if ok(deliveredKind(n)) {
				d.items = append(d.items[:i:i], d.items[i+1:]...)
				d.mu.Unlock()
				return n
			}
		}
		d.mu.Unlock()
		select {
		case <-d.more:
		case <-deadline:
			return Native{Kind: kindNone, Type: "none"}
		case <-ctx.Done():
			return errNative("exception", "context", "context", ctx.Err().Error())
		}
	}
}

// deliveredKind is the kind field of a delivered item.
func deliveredKind(n Native) string {
	for _, p := range n.Pairs {
		if p[0].Text != nil && *p[0].Text == "kind" && p[1].Text != nil {
			return *p[1].Text
		}
	}
	return ""
}

// messageOf builds a delivered item of host type typ from field names and
// values, in order (kind, then the others).
func messageOf(typ string, fields ...any) Native {
	n := Native{Kind: kindMessage, Type: typ}
	for i := 0; i+1 < len(fields); i += 2 {
		name := fields[i].(string)
		var v Native
		switch x := fields[i+1].(type) {
		case Native:
			v = x
		case string:
			v = stringNative("string", x)
		default:
			v = goNative(x)
		}
		n.Pairs = append(n.Pairs, [2]Native{textNative("string", "field", name), v})
	}
	return n
}

// unsupported is the Native of a step the library has no API for.
func unsupported(why string) Native {
	return errNative(kindUnsupported, "unsupported", "unsupported", why)
}

// isConfirmation reports whether kind is a (p|s)(un)subscribe
// confirmation's.
func isConfirmation(kind string) bool {
	_, _, ok := subscribeFamily(kind)
	return ok
}
