package clients

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/target"
)

// Recorder is the client views' recording proxy on its own, for an
// application's traffic (respcheck capture): every connection accepted on
// Addr is forwarded to the upstream, opened with the upstream's TLS, AUTH
// and SELECT in RESP2 (the application's own HELLO, AUTH and SELECT go
// through as sent), each frame forwarded unchanged once whole and
// recorded with the order it crossed in.
type Recorder struct {
	p    *proxy
	keys *keyKeeper // RecorderOptions.KeysBefore
}

// RecorderOptions are what a Recorder does besides forwarding and
// recording.
type RecorderOptions struct {
	// KeysBefore reads, before forwarding a command, each key it names
	// that no earlier command named, on a connection of the Recorder's
	// own to the upstream: KeysBefore returns them, to build them again
	// before a replay.
	KeysBefore bool
}

// NewRecorder listens on listen (host:port; port 0 picks a free one) and
// forwards to upstream. Errors are the listener's.
func NewRecorder(upstream target.Config, listen string) (*Recorder, error) {
	return NewRecorderWith(context.Background(), upstream, listen, RecorderOptions{})
}

// NewRecorderWith is NewRecorder with o; ctx bounds what KeysBefore asks
// the upstream (its errors are the upstream's: COMMAND INFO, a dial).
func NewRecorderWith(ctx context.Context, upstream target.Config, listen string, o RecorderOptions) (*Recorder, error) {
	p, err := listenProxyOn(listen, []target.Config{upstream}, Fault{})
	if err != nil {
		return nil, err
	}
	r := &Recorder{p: p}
	if o.KeysBefore {
		if err := r.keepKeys(ctx, upstream); err != nil {
			p.Close()
			return nil, err
		}
	}
	p.start()
	return r, nil
}

// Addr is the address the application connects to.
func (r *Recorder) Addr() string { return r.p.Addr() }

// Close stops listening and closes every connection (the application's
// and the upstream's).
func (r *Recorder) Close() error {
	if r.keys != nil {
		r.keys.close()
	}
	return r.p.Close()
}

// Counts is how many connections were accepted and frames recorded so
// far, for a progress line.
func (r *Recorder) Counts() (conns int, frames uint64) { return len(r.p.Taps()), r.p.Seq() }

// Exchange is one command a recorded connection sent and what the server
// sent for it, or (Args nil) out-of-band frames that came after a
// connection's last reply.
type Exchange struct {
	// Conn numbers the connection from 1, in accept order.
	Conn int
	// Args is the command's arguments and Sent its exact bytes.
	Args [][]byte
	Sent []byte
	// Replies are the command's reply frames, exact bytes: one, or one
	// per channel of a (un)subscribe; none when the connection or the
	// capture ended first.
	Replies [][]byte
	// Pushes are the out-of-band frames (RESP3 pushes, RESP2 pub/sub
	// messages) that arrived while the command waited, before Replies.
	Pushes [][]byte
	// SentAt and RepliedAt order the exchange among all connections':
	// the proxy's sequence numbers of the command and of its last reply
	// frame (0: none), PushedAt those of Pushes. SentTime is when the
	// command crossed the proxy, RepliedTime when its last reply frame did
	// (zero: none).
	SentAt, RepliedAt     uint64
	PushedAt              []uint64
	SentTime, RepliedTime time.Time
}

// Exchanges returns every connection's exchanges, ordered by SentAt (a
// connection's trailing out-of-band frames by their own order). A
// connection's recording stops at bytes that are not RESP; Bad says which
// connections had some.
func (r *Recorder) Exchanges() (out []Exchange, bad []int) {
	for _, t := range r.p.Taps() {
		events := t.Events()
		pairs := pairEvents(events)
		taken := map[int]bool{} // events that are some command's reply or push
		for _, p := range pairs {
			taken[p.reply] = true
			for _, j := range append(slices.Clone(p.more), p.pushes...) {
				taken[j] = true
			}
		}
		var last *Exchange
		for i, e := range events {
			if e.Bad != nil {
				bad = append(bad, t.ID)
				break
			}
			if e.Dir != ToServer {
				continue
			}
			p := pairs[i]
			ex := Exchange{Conn: t.ID, Sent: e.Value.Raw, SentAt: e.seq, SentTime: e.Time, Args: exchangeArgs(e.Value)}
			for _, j := range p.pushes {
				ex.Pushes, ex.PushedAt = append(ex.Pushes, events[j].Value.Raw), append(ex.PushedAt, events[j].seq)
			}
			if p.reply >= 0 {
				for _, j := range append([]int{p.reply}, p.more...) {
					ex.Replies, ex.RepliedAt, ex.RepliedTime = append(ex.Replies, events[j].Value.Raw), events[j].seq, events[j].Time
				}
			}
			out = append(out, ex)
			last = &out[len(out)-1]
		}
		// Out-of-band frames after the last reply (a subscriber waiting):
		// the pairing gives them to no command.
		var tail Exchange
		for i, e := range events {
			if e.Dir == ToClient && e.Bad == nil && !taken[i] && (last == nil || e.seq > last.RepliedAt) {
				tail.Pushes, tail.PushedAt = append(tail.Pushes, e.Value.Raw), append(tail.PushedAt, e.seq)
			}
		}
		if len(tail.Pushes) > 0 {
			tail.Conn, tail.SentAt = t.ID, tail.PushedAt[0]
			out = append(out, tail)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SentAt < out[j].SentAt })
	return out, bad
}

// exchangeArgs is a command frame's arguments: an array's, or the
// words of an inline command (split as the server splits them).
func exchangeArgs(v resp.Value) [][]byte {
	if v.Kind == resp.Array {
		return commandArgs(v)
	}
	args, _, _ := resp.ReadCommand(v.Raw)
	return args
}

// appendExchangeArgs is exchangeArgs appended to buf[:0] (see
// appendCommandArgs).
func appendExchangeArgs(buf [][]byte, v resp.Value) [][]byte {
	if v.Kind == resp.Array {
		return appendCommandArgs(buf, v)
	}
	return append(buf[:0], exchangeArgs(v)...)
}
