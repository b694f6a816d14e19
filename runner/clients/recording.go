package clients

import (
	"bytes"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// A proxied connection records compactly while frames cross it and
// decodes on read: a frame as forwarded costs a copy of its bytes into a
// chunk of the connection's and an entry of 56 bytes, where a decoded
// Event (230 bytes, its Value cloned) cost a capture of redis-benchmark -P
// 16 41% of the proxy's CPU (the slice's growth, its first touch, the
// collector's scans: BenchmarkCaptureOverhead's profile, 2026-12-07).
// Events are decoded from the entries the first time someone reads them,
// under the connection's lock, once each.

// entry is one recorded frame: where its exact bytes are in the
// connection's chunks (never written again), or, for a frame that is more
// than its bytes (not RESP, injected, served, rewritten), that the whole
// Event is kept beside. It holds no pointer: the collector never scans
// the log.
type entry struct {
	at     int64 // time.Time.UnixNano of its crossing
	seq    uint64
	off, n uint32 // the bytes: chunks[chunk][off:off+n]
	chunk  int32  // -1: the Event is full[index]
	dir    dir8
}

// dir8 is a Dir in one byte, for the log's entries.
type dir8 uint8

const (
	entryChunk = 2048     // entries per chunk of the log
	byteChunk  = 64 << 10 // bytes per shared chunk of frame bytes
	ownChunk   = 8 << 10  // a frame this long or longer gets a chunk of its own
)

// recording is a connection's frames in crossing order.
type recording struct {
	log    [][]entry // chunks of entryChunk entries when full; only the last has room
	n      int       // entries in log
	chunks [][]byte  // frame bytes
	cur    int       // the chunk small frames are copied into
	full   map[int]*Event
	// decoded are the Events of log's first len(decoded) entries.
	decoded []Event
	lim     resp.Limits // what the frames were read with, to decode them again
}

// add appends e and returns its index.
func (r *recording) add(e entry) int {
	switch {
	case len(r.log) == 0:
		// The first chunk grows as the connection's frames come (most
		// of the client views' thousands of connections carry a few
		// dozen: a 64 KiB chunk each made TestClientMatrix's proxy
		// allocate gigabytes), up to entryChunk like the others.
		r.log = append(r.log, make([]entry, 0, 8))
	case len(r.log[len(r.log)-1]) == entryChunk:
		r.log = append(r.log, make([]entry, 0, entryChunk))
	}
	last := &r.log[len(r.log)-1]
	*last = append(*last, e)
	r.n++
	return r.n - 1
}

// addFrame copies frame into the recording's chunks, adds its entry and
// returns the copy.
func (r *recording) addFrame(dir Dir, frame []byte, at int64, seq uint64) []byte {
	e := entry{at: at, seq: seq, dir: dir8(dir), n: uint32(len(frame))}
	switch {
	case len(frame) >= ownChunk:
		r.chunks = append(r.chunks, bytes.Clone(frame))
		e.chunk = int32(len(r.chunks) - 1)
	case len(r.chunks) == 0 || cap(r.chunks[r.cur])-len(r.chunks[r.cur]) < len(frame):
		// Shared chunks double from 512 bytes to byteChunk, as the
		// log's first chunk grows.
		size := 512
		if len(r.chunks) > 0 {
			size = min(byteChunk, 2*cap(r.chunks[r.cur]))
		}
		r.chunks = append(r.chunks, make([]byte, 0, max(size, len(frame))))
		r.cur = len(r.chunks) - 1
		fallthrough
	default:
		e.chunk, e.off = int32(r.cur), uint32(len(r.chunks[r.cur]))
		r.chunks[r.cur] = append(r.chunks[r.cur], frame...)
	}
	r.add(e)
	return r.bytesOf(e)
}

// addFull adds an Event that is more than a frame's bytes.
func (r *recording) addFull(e Event) {
	if r.full == nil {
		r.full = map[int]*Event{}
	}
	r.full[r.n] = &e
	r.add(entry{at: e.Time.UnixNano(), seq: e.seq, chunk: -1, dir: dir8(e.Dir)})
}

// bytesOf is e's frame bytes (capped: appending to them copies).
func (r *recording) bytesOf(e entry) []byte {
	end := e.off + e.n
	return r.chunks[e.chunk][e.off:end:end]
}

// events decodes the entries not yet decoded and returns every Event;
// the caller holds the connection's lock and must not keep the slice
// past it (a later add may grow it).
func (r *recording) events() []Event {
	for i := len(r.decoded); i < r.n; i++ {
		r.decoded = append(r.decoded, r.decode(i))
	}
	return r.decoded
}

// decode is entry i as an Event. Its bytes were read as a frame under
// r.lim, so they decode again; if they did not, they are recorded as not
// RESP.
func (r *recording) decode(i int) Event {
	e := r.log[i/entryChunk][i%entryChunk]
	if e.chunk < 0 {
		return *r.full[i]
	}
	raw := r.bytesOf(e)
	ev := Event{Dir: Dir(e.dir), Time: time.Unix(0, e.at), seq: e.seq}
	lim := r.lim
	lim.MaxDepth = max(lim.MaxDepth, resp.AnyDepth(raw).MaxDepth)
	if _, v, err := resp.ParseLimits(raw, lim); err == nil {
		ev.Value = v
	} else {
		ev.Bad = raw
	}
	return ev
}
