package clients

import (
	"bytes"
	"strings"

	"github.com/respcheck/respcheck/resp"
)

// pairing is what one command on a proxied connection got: the frame that
// is its reply and the out-of-band frames that arrived while it waited.
type pairing struct {
	reply  int   // index of the reply event; -1 while none has arrived
	pushes []int // out-of-band frames before the reply (push frames, RESP2 messages)
	// more are the further frames that belong to the same command (the
	// second and later confirmations of SUBSCRIBE a b).
	more []int
}

// connState is what pairing tracks of one connection: the protocol in
// force and the subscriptions (channels, patterns, shard channels), which
// decide how the next frames pair with commands.
type connState struct {
	proto int
	subs  [3]map[string]bool // by subscribeKinds index
}

// subscribeKinds are the three families of subscription commands, as
// (subscribe, unsubscribe, message kind) names.
var subscribeKinds = [3][3]string{
	{"subscribe", "unsubscribe", "message"},
	{"psubscribe", "punsubscribe", "pmessage"},
	{"ssubscribe", "sunsubscribe", "smessage"},
}

func (s *connState) subscribed() bool {
	return len(s.subs[0])+len(s.subs[1])+len(s.subs[2]) > 0
}

// subscribeFamily returns the index in subscribeKinds of a (un)subscribe
// command or confirmation name, and whether it subscribes.
func subscribeFamily(name string) (int, bool, bool) {
	name = strings.ToLower(name)
	for i, k := range subscribeKinds {
		switch name {
		case k[0]:
			return i, true, true
		case k[1]:
			return i, false, true
		}
	}
	return 0, false, false
}

// expected is how many frames a command's reply takes: one, except for
// the (un)subscribe family, which gets one confirmation per channel (an
// UNSUBSCRIBE without channels: one per subscription, at least one).
func (s *connState) expected(cmd resp.Value) int {
	if cmd.Kind != resp.Array || len(cmd.Elems) == 0 {
		return 1
	}
	fam, sub, ok := subscribeFamily(string(cmd.Elems[0].Str))
	if !ok {
		return 1
	}
	if n := len(cmd.Elems) - 1; n > 0 || sub {
		return max(n, 1)
	}
	return max(len(s.subs[fam]), 1)
}

// isMessage reports whether v is an out-of-band frame in state s: in RESP3
// any push that is not a (un)subscribe confirmation; in RESP2, once
// subscribed, a message, pmessage or smessage array.
func (s *connState) isMessage(v resp.Value) bool {
	if v.Kind == resp.Push {
		if len(v.Elems) > 0 {
			if _, _, conf := subscribeFamily(string(v.Elems[0].Str)); conf {
				return false
			}
		}
		return true
	}
	if v.Kind != resp.Array || s.proto == 3 || !s.subscribed() || len(v.Elems) == 0 {
		return false
	}
	kind := strings.ToLower(string(v.Elems[0].Str))
	for _, k := range subscribeKinds {
		if kind == k[2] {
			return true
		}
	}
	return false
}

// track updates s after a reply v to command cmd: HELLO switches the
// protocol, RESET ends subscriptions and returns to RESP2, a confirmation
// adds or removes its channel.
func (s *connState) track(cmd, v resp.Value) {
	name := ""
	if cmd.Kind == resp.Array && len(cmd.Elems) > 0 {
		name = strings.ToUpper(string(cmd.Elems[0].Str))
	}
	switch {
	case name == "HELLO" && (v.Kind == resp.Map || v.Kind == resp.Array) && len(cmd.Elems) > 1:
		if p := string(cmd.Elems[1].Str); p == "2" || p == "3" {
			s.proto = int(p[0] - '0')
		}
	case name == "RESET" && v.Kind == resp.SimpleString:
		*s = connState{proto: 2}
	}
	if (v.Kind == resp.Push || v.Kind == resp.Array) && len(v.Elems) >= 3 {
		fam, sub, ok := subscribeFamily(string(v.Elems[0].Str))
		if !ok {
			return
		}
		if s.subs[fam] == nil {
			s.subs[fam] = map[string]bool{}
		}
		ch := string(v.Elems[1].Str)
		if sub {
			s.subs[fam][ch] = true
		} else if v.Elems[1].Kind != resp.Null && !(v.Elems[1].Kind == resp.BlobString && v.Elems[1].Str == nil) {
			delete(s.subs[fam], ch)
		}
		if v.Elems[2].Kind == resp.Integer && v.Elems[2].Int == 0 {
			s.subs = [3]map[string]bool{}
		}
	}
}

// pairEvents pairs every command of one connection's events (in order) with
// its reply, by the rules in the package doc: replies come in command
// order; push frames are out of band except the (un)subscribe
// confirmations, which are the replies of the (un)subscribe commands (one
// per channel); in RESP2 subscribed mode message arrays are out of band and
// every other frame is a reply; a frame the proxy injected
// (Fault.ExtraAfter) replies to nothing. It returns one pairing per command event,
// keyed by the command's event index. Pairing stops at bytes that are not
// RESP.
func pairEvents(events []Event) map[int]*pairing {
	out, _ := pairState(events)
	return out
}

// state is the connection's state after the frames recorded so far.
func (t *proxyConn) state() connState {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, st := t.pairsLocked()
	return st
}

// pairsLocked is pairState of the connection's events (t.mu held),
// computed again only once more frames were recorded: a pipeline's
// claims ask it once per command (the reply generator's 40-frame
// pipelines spent 7% of respcheck's CPU pairing the same events again).
// The result is shared: read it, do not change it.
func (t *proxyConn) pairsLocked() (map[int]*pairing, connState) {
	events := t.rec.events()
	if t.paired.pairs == nil || t.paired.n != len(events) {
		t.paired.pairs, t.paired.st = pairState(events)
		t.paired.n = len(events)
	}
	return t.paired.pairs, t.paired.st
}

// pairCache is a connection's last pairState and how many events it
// paired.
type pairCache struct {
	n     int
	pairs map[int]*pairing
	st    connState
}

// pairState is pairEvents that also returns the state after the events.
func pairState(events []Event) (map[int]*pairing, connState) {
	out := map[int]*pairing{}
	st := connState{proto: 2}
	var queue []int // command events waiting for a reply, oldest first
	var left int    // frames the head command still takes
	var loose []int // out-of-band frames with no command waiting
	for i, e := range events {
		if e.Bad != nil {
			break
		}
		if e.Dir == ToServer {
			out[i] = &pairing{reply: -1}
			if len(queue) == 0 {
				left = st.expected(e.Value)
			}
			queue = append(queue, i)
			continue
		}
		if e.Injected || st.isMessage(e.Value) || len(queue) == 0 {
			if len(queue) > 0 {
				p := out[queue[0]]
				p.pushes = append(p.pushes, i)
			} else {
				loose = append(loose, i)
			}
			continue
		}
		head := queue[0]
		p := out[head]
		if p.reply < 0 {
			p.reply = i
			p.pushes = append(loose, p.pushes...)
			loose = nil
		} else {
			p.more = append(p.more, i)
		}
		st.track(events[head].Value, e.Value)
		if left--; left <= 0 {
			queue = queue[1:]
			if len(queue) > 0 {
				left = st.expected(events[queue[0]].Value)
			}
		}
	}
	return out, st
}

// isCanaryCommand reports whether v is a canary probe respcheck sent (ECHO
// or PING with a canary token, or a cluster client's EVAL canaryScript 1
// KEY token).
func isCanaryCommand(v resp.Value) bool {
	if v.Kind != resp.Array || len(v.Elems) != 2 && len(v.Elems) != 5 {
		return false
	}
	return bytes.HasPrefix(v.Elems[len(v.Elems)-1].Str, []byte(canaryPrefix)) &&
		(len(v.Elems) == 2 || string(v.Elems[1].Str) == canaryScript)
}
