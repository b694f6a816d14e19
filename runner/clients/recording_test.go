package clients

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// TestRecordingKeepsEveryFrame: frames recorded compactly across chunk
// boundaries (log chunks of entryChunk, byte chunks of byteChunk, frames
// of ownChunk bytes or more on their own), with whole Events between
// them, decode to the same frames in order, with their seq, direction
// and time; reading part of the way and then on decodes each once, and a
// copy handed out is never written again by later frames.
func TestRecordingKeepsEveryFrame(t *testing.T) {
	var r recording
	var want [][]byte
	var fulls int
	big := fmt.Appendf(nil, "$%d\r\n%s\r\n", ownChunk, bytes.Repeat([]byte("x"), ownChunk))
	var handed [][]byte
	for i := range 3*entryChunk + 7 {
		seq := uint64(i + 1)
		switch {
		case i%1000 == 999:
			r.addFull(Event{Dir: ToClient, Bad: []byte("?x\r\n"), seq: seq})
			want = append(want, nil)
			fulls++
		case i%500 == 0:
			c := r.addFrame(ToClient, big, int64(i), seq)
			handed = append(handed, c)
			want = append(want, big)
		default:
			f := resp.AppendCommandString(nil, "SET", fmt.Sprintf("k%d", i), "v")
			c := r.addFrame(Dir(i%2), f, int64(i), seq)
			handed = append(handed, c)
			want = append(want, f)
		}
		if i == entryChunk+3 {
			if n := len(r.events()); n != i+1 {
				t.Fatalf("events after %d frames: %d", i+1, n)
			}
		}
	}
	if len(r.chunks) < 3 {
		t.Fatalf("%d byte chunks: the test did not cross a chunk boundary", len(r.chunks))
	}
	events := r.events()
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i, e := range events {
		if e.seq != uint64(i+1) {
			t.Fatalf("event %d: seq %d", i, e.seq)
		}
		if want[i] == nil {
			if string(e.Bad) != "?x\r\n" {
				t.Fatalf("event %d: %+v, want the whole Event kept", i, e)
			}
			continue
		}
		if !bytes.Equal(e.Value.Raw, want[i]) || e.Bad != nil {
			t.Fatalf("event %d: %q, want %q", i, e.Value.Raw, want[i])
		}
		if !e.Time.Equal(time.Unix(0, int64(i))) {
			t.Fatalf("event %d: time %v", i, e.Time)
		}
	}
	for _, c := range handed {
		if _, _, err := resp.Parse(c); err != nil || cap(c) != len(c) {
			t.Fatalf("a handed-out copy changed or may be appended to in place: %q (cap %d)", c, cap(c))
		}
	}
	if fulls == 0 {
		t.Fatal("no whole Event recorded")
	}
}
