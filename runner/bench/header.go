package bench

import (
	"errors"
	"strings"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// rttPings is the number of timed PINGs of the round-trip figure.
const rttPings = 20

// rtt times rttPings PINGs (after two untimed ones) on the bench's
// connection: the link's round trip as the bench sees it, in ms.
func (b *bencher) rtt() (Stat, error) {
	var ds []float64
	for i := range rttPings + 2 {
		start := time.Now()
		v, err := b.c.do([]byte("PING"))
		if err != nil {
			return Stat{}, err
		}
		if err := want("PING", v, v.Kind == resp.SimpleString && string(v.Str) == "PONG"); err != nil {
			return Stat{}, err
		}
		if i >= 2 {
			ds = append(ds, float64(time.Since(start))/float64(time.Millisecond))
		}
	}
	return summarize(ds), nil
}

// configParams are the server parameters the report header names: those
// that change what the tables measure (durability of writes, I/O threads).
var configParams = []string{"appendonly", "appendfsync", "io-threads", "save"}

// serverConfig returns "name=value" for each of configParams, read with
// CONFIG GET; where CONFIG is refused (a managed or shared server may
// rename it), what INFO persistence and INFO threads say instead, or
// the reason nothing could be read.
func (b *bencher) serverConfig() []string {
	var out []string
	for _, p := range configParams {
		v, err := b.c.doString("CONFIG", "GET", p)
		if err != nil {
			return b.infoConfig(err)
		}
		out = append(out, p+"="+configValue(v, p))
	}
	return out
}

// configValue finds p's value in a CONFIG GET reply (an array of name,
// value pairs in RESP2, a map in RESP3); "?" when it is absent.
func configValue(v resp.Value, p string) string {
	elems := v.Elems
	for i := 0; i+1 < len(elems); i += 2 {
		if strings.EqualFold(string(elems[i].Str), p) {
			if len(elems[i+1].Str) == 0 {
				return `""`
			}
			return string(elems[i+1].Str)
		}
	}
	return "?"
}

// infoConfig is serverConfig's fallback: aof_enabled from INFO persistence
// and io_threads_active from INFO (stats on Redis 8.6.3), prefixed with
// why CONFIG GET was not used.
func (b *bencher) infoConfig(cause error) []string {
	var re *replyError
	why := cause.Error()
	if errors.As(cause, &re) {
		why = re.text
	}
	out := []string{"CONFIG GET refused (" + why + ")"}
	v, err := b.c.doString("INFO", "everything")
	if err != nil {
		return out
	}
	for line := range strings.Lines(string(v.Str)) {
		k, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "aof_enabled" || k == "io_threads_active") {
			out = append(out, "INFO "+k+"="+val)
		}
	}
	return out
}
