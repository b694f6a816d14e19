package clients

import (
	"reflect"
	"strings"
	"testing"

	"github.com/respcheck/respcheck/resp"
)

// wire builds events from alternating directions: ">" lines are commands
// (space-separated arguments), "<" lines are server frames in RESP.
func wire(t *testing.T, lines ...string) []Event {
	t.Helper()
	var out []Event
	for _, l := range lines {
		var raw []byte
		dir := ToClient
		if l[0] == '>' {
			dir = ToServer
			raw = resp.AppendCommandString(nil, strings.Fields(l[1:])...)
		} else {
			raw = []byte(l[1:])
		}
		_, v, err := resp.Parse(raw)
		if err != nil || len(v.Raw) != len(raw) {
			t.Fatalf("bad frame %q: %v", l, err)
		}
		out = append(out, Event{Dir: dir, Value: v.Clone()})
	}
	return out
}

func TestPairEvents(t *testing.T) {
	const (
		hello3 = "<%1\r\n$5\r\nproto\r\n:3\r\n"
		sub3a  = "<>3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
		sub3b  = "<>3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
		msg3   = "<>3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n"
		sub2a  = "<*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
		msg2   = "<*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n"
		unsub2 = "<*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n"
		inval  = "<>2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
	)
	for _, tc := range []struct {
		name   string
		events []string
		want   map[int]pairing
	}{
		{"RESP3 SUBSCRIBE a b takes both confirmations, then PING its own reply",
			[]string{"> HELLO 3", hello3, "> SUBSCRIBE a b", sub3a, sub3b, "> PING", msg3, "<+PONG\r\n"},
			map[int]pairing{0: {reply: 1}, 2: {reply: 3, more: []int{4}}, 5: {reply: 7, pushes: []int{6}}}},
		{"RESP3 invalidation push before a reply is out of band",
			[]string{"> HELLO 3", hello3, "> GET k", inval, "<$1\r\nv\r\n", "> GET k", "<_\r\n"},
			map[int]pairing{0: {reply: 1}, 2: {reply: 4, pushes: []int{3}}, 5: {reply: 6}}},
		{"RESP2 subscribed: messages out of band, PING's pong array and UNSUBSCRIBE pair",
			[]string{"> SUBSCRIBE a", sub2a, msg2, "> PING", "<*2\r\n$4\r\npong\r\n$0\r\n\r\n", "> UNSUBSCRIBE", unsub2, "> GET k", "<$-1\r\n"},
			map[int]pairing{0: {reply: 1}, 3: {reply: 4, pushes: []int{2}}, 5: {reply: 6}, 7: {reply: 8}}},
		{"RESP2 not subscribed: an array that starts with message is a reply",
			[]string{"> LRANGE l 0 -1", msg2},
			map[int]pairing{0: {reply: 1}}},
		{"RESP3 subscribed: an array that starts with message is a reply",
			[]string{"> HELLO 3", hello3, "> SUBSCRIBE a", sub3a, "> LRANGE l 0 -1", msg2[:1] + msg2[1:]},
			map[int]pairing{0: {reply: 1}, 2: {reply: 3}, 4: {reply: 5}}},
		{"MULTI with a push in the middle",
			[]string{"> HELLO 3", hello3, "> MULTI", "<+OK\r\n", "> INCR k", inval, "<+QUEUED\r\n", "> EXEC", "<*1\r\n:1\r\n"},
			map[int]pairing{0: {reply: 1}, 2: {reply: 3}, 4: {reply: 6, pushes: []int{5}}, 7: {reply: 8}}},
		{"UNSUBSCRIBE without channels takes one confirmation per subscription",
			[]string{"> HELLO 3", hello3, "> SUBSCRIBE a b", sub3a, sub3b,
				"> UNSUBSCRIBE", "<>3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n", "<>3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n", "> PING", "<+PONG\r\n"},
			map[int]pairing{0: {reply: 1}, 2: {reply: 3, more: []int{4}}, 5: {reply: 6, more: []int{7}}, 8: {reply: 9}}},
		{"a reply not yet arrived",
			[]string{"> GET k"},
			map[int]pairing{0: {reply: -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pairEvents(wire(t, tc.events...))
			if len(got) != len(tc.want) {
				t.Fatalf("%d pairings, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g == nil || g.reply != w.reply || !reflect.DeepEqual(g.pushes, w.pushes) || !reflect.DeepEqual(g.more, w.more) {
					t.Errorf("command at %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
