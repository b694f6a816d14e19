package bench

import (
	"fmt"
	"strconv"
	"time"

	"github.com/respcheck/respcheck/cases"
	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/scenario"
)

// The shape of the INCREX tables (the INCREX article): increxClients
// clients making increxRequests requests each, on one key for
// increx-contention, on a fresh key per request for increx-crash, where a
// client crashes with probability increxCrashRate. Quick divides the
// requests by 5.
var (
	increxClients   = 20
	increxRequests  = 100
	increxCrashRate = 0.02
)

// increxVariant is one row of the INCREX tables: a rate-limiter pattern of
// package scenario (INCR then EXPIRE, or one command).
type increxVariant struct {
	label   string
	pattern cases.Pattern
}

var increxVariants = []increxVariant{
	{"INCR + EXPIRE", cases.PatIncrExpire},
	{"MULTI/EXEC", cases.PatMultiIncrExpire},
	{"Lua", cases.PatLuaIncrExpire},
	{"INCREX", cases.PatIncrex},
}

// increxTTL is the expiry every variant sets.
const increxTTL = 60 * time.Second

// increx: the INCREX article's two tables. increx-contention: the clients
// all increment one key; the final value and the key's TTL afterwards (in
// s; -1 when it has none). increx-crash: each request its own key, a
// client crashing before the request completes (between INCR and EXPIRE
// for INCR + EXPIRE, before EXEC for MULTI, before the command for the
// one-command variants) with probability increxCrashRate drawn with the
// trial's index as seed; the crashes and the keys left without a TTL.
func (b *bencher) increx() ([]*Table, error) {
	requests := increxRequests
	if b.o.Quick {
		requests /= 5
	}
	trials := b.contentionTrials()
	has, err := b.t.HasCommand(b.ctx, "INCREX")
	if err != nil {
		return nil, err
	}
	total := increxClients * requests
	cont := &Table{ID: "increx-contention", Title: "INCREX contention: one key", Unit: "value; TTL in s",
		RowHeader: "variant", Columns: []string{"final value", "TTL"}, Trials: trials, Bars: true,
		Note: fmt.Sprintf("%d clients x %d requests on one key (%d increments), TTL %s: INCR then EXPIRE when it "+
			"answered 1; MULTI/EXEC: MULTI, INCR, EXPIRE, EXEC; Lua: EVAL of INCR plus EXPIRE-when-1; INCREX key EX 60 BYINT 1 "+
			"(where COMMAND INFO lists it); the TTL is read once all are done (-1: none)",
			increxClients, requests, total, increxTTL)}
	crash := &Table{ID: "increx-crash", Title: "INCREX: crashes between INCR and EXPIRE", Unit: "keys",
		RowHeader: "variant", Columns: []string{"crashes", "keys without TTL"}, Trials: trials, Bars: true,
		Note: fmt.Sprintf("%d clients x %d requests, a fresh key each; a client crashes (closes its connection and "+
			"reconnects) with probability %g per request (math/rand/v2 PCG, seed = trial index): between INCR and "+
			"EXPIRE, before EXEC, or before the one command", increxClients, requests, increxCrashRate)}
	b.progress(cont.Title)
	for i, v := range increxVariants {
		if v.pattern == cases.PatIncrex && !has {
			ns := Stat{Note: notSupported}
			cont.Rows = append(cont.Rows, Row{Label: v.label, X: float64(i), Cells: []Stat{ns, ns}})
			crash.Rows = append(crash.Rows, Row{Label: v.label, X: float64(i), Cells: []Stat{ns, ns}})
			continue
		}
		var figs [4][]float64 // final, TTL, crashes, no TTL
		for t := range trials {
			final, ttl, err := b.increxOneKey(v.pattern, requests)
			if err != nil {
				return nil, fmt.Errorf("increx-contention, %s: %w", v.label, err)
			}
			sc := &cases.Scenario{Pattern: v.pattern, Connections: increxClients, Iterations: requests, TTL: increxTTL,
				Crash: &cases.Crash{Probability: increxCrashRate, Seed: uint64(t)}}
			met, err := b.scenario(sc)
			if err != nil {
				return nil, fmt.Errorf("increx-crash, %s: %w", v.label, err)
			}
			for j, f := range []float64{final, ttl, met["crashes"], met["no_ttl"]} {
				figs[j] = append(figs[j], f)
			}
		}
		cont.Rows = append(cont.Rows, Row{Label: v.label, X: float64(i), Cells: []Stat{summarize(figs[0]), summarize(figs[1])}})
		crash.Rows = append(crash.Rows, Row{Label: v.label, X: float64(i), Cells: []Stat{summarize(figs[2]), summarize(figs[3])}})
	}
	b.cleanup()
	return []*Table{cont, crash}, nil
}

// scenarioPrefix returns a fresh key prefix of the run for one scenario.
func (b *bencher) scenarioPrefix() string {
	b.n++
	return b.prefix + "sc:" + strconv.Itoa(b.n) + ":"
}

// scenario runs sc under a fresh key prefix of the run.
func (b *bencher) scenario(sc *cases.Scenario) (scenario.Metrics, error) {
	return scenario.Run(b.ctx, b.t, sc, b.o.Proto, b.scenarioPrefix(), b.o.Target.Timeout)
}

// increxOneKey runs pattern with increxClients clients making requests
// requests each on one key, and returns the key's value and TTL (s)
// afterwards.
func (b *bencher) increxOneKey(pattern cases.Pattern, requests int) (final, ttl float64, err error) {
	prefix := b.scenarioPrefix()
	sc := &cases.Scenario{Pattern: pattern, Connections: increxClients, Iterations: requests, TTL: increxTTL, OneKey: true}
	if _, err := scenario.Run(b.ctx, b.t, sc, b.o.Proto, prefix, b.o.Target.Timeout); err != nil {
		return 0, 0, err
	}
	key := []byte(prefix + "rl:0")
	v, err := b.c.do([]byte("GET"), key)
	if err != nil {
		return 0, 0, err
	}
	if err := want("GET", v, v.Kind == resp.BlobString); err != nil {
		return 0, 0, err
	}
	if final, err = strconv.ParseFloat(string(v.Str), 64); err != nil {
		return 0, 0, fmt.Errorf("GET: %w", err)
	}
	v, err = b.c.do([]byte("TTL"), key)
	if err != nil {
		return 0, 0, err
	}
	if err := want("TTL", v, v.Kind == resp.Integer); err != nil {
		return 0, 0, err
	}
	return final, float64(v.Int), nil
}
