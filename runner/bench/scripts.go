package bench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// The shape of the script tables (the article on Lua scripts blocking a
// single-threaded server): scriptDurations are the busy loops run back to
// back on one connection for scriptWindow while another client makes
// GET+SET pairs; stallScript is the one script of script-stall;
// busyThreshold is the busy-reply-threshold set on a throwaway server for
// script-busy and script-kill. Quick shortens the window to a fifth and
// the stall script to a quarter.
var (
	scriptDurations = []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond}
	scriptWindow    = 2 * time.Second
	stallScript     = time.Second
	busyThreshold   = 100 * time.Millisecond
)

// maxBusyThreshold is the longest busy-reply-threshold of a shared server
// that script-busy runs past (each trial lasts the threshold plus 500 ms).
const maxBusyThreshold = 2 * time.Second

// The clocks of the busy loops, as the Lua function now() (µs): TIME,
// where it advances inside a script (Redis 7.0.15), else os.clock(), the
// server process's CPU time (Redis 8.6.3 and Valkey 9.1.2 answer every
// TIME of one script with the same time: testdata/servers/repro/
// script-time-frozen.sh).
const (
	clockTIME  = `local function now() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end`
	clockCPU   = `local function now() return os.clock() * 1000000 end`
	luaTicking = `local a = redis.call('TIME') for i = 1, 2000000 do end local b = redis.call('TIME')
if a[1] ~= b[1] or a[2] ~= b[2] then return 1 end return 0`
)

// luaBusy returns a script that loops on clock until ARGV[1] ms have
// passed; with writes, it SETs KEYS[1] first and KEYS[2] after the loop.
func luaBusy(clock string, writes bool) string {
	s := clock + "\n"
	if writes {
		s += "redis.call('SET', KEYS[1], '1')\n"
	}
	s += "local stop = now() + tonumber(ARGV[1]) * 1000\nrepeat until now() >= stop\n"
	if writes {
		s += "redis.call('SET', KEYS[2], '1')\n"
	}
	return s + "return 1"
}

// scriptClock picks the busy loops' clock: clockTIME when TIME advances
// inside a script, else clockCPU; name is how the notes call it.
func (b *bencher) scriptClock() (clock, name string, err error) {
	v, err := b.c.do([]byte("EVAL"), []byte(luaTicking), []byte("0"))
	if err != nil {
		return "", "", err
	}
	if v.Kind == resp.Integer && v.Int == 1 {
		return clockTIME, "a Lua loop on redis.call('TIME')", nil
	}
	return clockCPU, "a Lua loop on os.clock() (TIME does not advance inside a script on this server; " +
		"os.clock is the server's CPU time, so on a loaded machine a loop lasts longer than its figure)", nil
}

// scriptScope is what every script table says of the scripts it leaves out.
const scriptScope = "Upstash's key-locking flag for scripts is not part of RESP: out of scope"

// busyThreshold reads busy-reply-threshold (lua-time-limit before Redis
// 7.0) in ms; ok is false when CONFIG GET is refused or names neither.
func (b *bencher) busyThreshold() (ms int, ok bool) {
	for _, p := range []string{"busy-reply-threshold", "lua-time-limit"} {
		v, err := b.c.doString("CONFIG", "GET", p)
		if err != nil {
			return 0, false
		}
		if n, err := strconv.Atoi(configValue(v, p)); err == nil {
			return n, true
		}
	}
	return 0, false
}

// isBusy reports whether err is a BUSY error reply.
func isBusy(err error) bool {
	var re *replyError
	return errors.As(err, &re) && strings.HasPrefix(re.text, "BUSY")
}

// scripts: the script tables: script-pairs, script-drop, script-stall,
// script-busy and, on a throwaway server, script-kill.
func (b *bencher) scripts() ([]*Table, error) {
	trials := b.runTrials(3, 2) // each a whole run of the scripts
	clock, clockName, err := b.scriptClock()
	if err != nil {
		return nil, err
	}
	b.clock = clock
	ms, known := b.busyThreshold()
	conf := "busy-reply-threshold unknown (CONFIG GET refused)"
	if known {
		conf = fmt.Sprintf("busy-reply-threshold=%d ms", ms)
	}
	conf = "the scripts are " + clockName + "; " + conf
	tabs, err := b.scriptLoad(trials, conf)
	if err != nil {
		return nil, err
	}
	stall, err := b.scriptStall(trials, conf)
	if err != nil {
		return nil, err
	}
	tabs = append(tabs, stall)
	busy, kill, err := b.scriptBusyKill(trials, ms, known, clockName)
	if err != nil {
		return nil, err
	}
	tabs = append(tabs, busy)
	if kill != nil {
		tabs = append(tabs, kill)
	}
	b.cleanup()
	return tabs, nil
}

// loop runs f on its own connection until stop returns true, and returns
// a function that waits for it and returns its error.
func (b *bencher) loop(f func(c *client) error) (wait func() error, err error) {
	c, err := dial(b.ctx, &b.o)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	var ferr error
	wg.Go(func() { ferr = f(c) })
	return func() error {
		wg.Wait()
		c.close()
		return ferr
	}, nil
}

// busyScript runs the read-only busy loop for d on c.
func (b *bencher) busyScript(c *client, d time.Duration) error {
	v, err := c.do([]byte("EVAL"), []byte(luaBusy(b.clock, false)), []byte("0"), strconv.AppendInt(nil, d.Milliseconds(), 10))
	if err != nil {
		return err
	}
	return want("EVAL", v, v.Kind == resp.Integer && v.Int == 1)
}

// pairs makes GET+SET pairs on key until stop is set, and returns the
// pairs completed and the BUSY replies met.
func pairs(c *client, key []byte, stop *atomic.Bool) (n, busy int, err error) {
	val := []byte("v")
	for !stop.Load() {
		ok := true
		for _, args := range [][][]byte{{[]byte("GET"), key}, {[]byte("SET"), key, val}} {
			if _, err := c.do(args...); isBusy(err) {
				busy++
				ok = false
			} else if err != nil {
				return n, busy, err
			}
		}
		if ok {
			n++
		}
	}
	return n, busy, nil
}

// scriptLoad: script-pairs and script-drop. For each row, trials runs of
// scriptWindow: scripts of the row's duration back to back on one
// connection, GET+SET pairs on another.
func (b *bencher) scriptLoad(trials int, conf string) ([]*Table, error) {
	window := scriptWindow
	if b.o.Quick {
		window /= 5
	}
	pairsTab := &Table{ID: "script-pairs", Title: "Slow scripts: another client's GET+SET pairs", Unit: "pairs per second",
		RowHeader: "script", Columns: []string{"GET+SET pairs"}, Trials: trials, Bars: true,
		Note: fmt.Sprintf("for %s, EVAL of a loop for the row's duration, back to back on one "+
			"connection, while a second connection makes GET+SET pairs on an unrelated key; %s; %s", window, conf, scriptScope)}
	drop := &Table{ID: "script-drop", Title: "Slow scripts: drop in another client's pairs", Unit: "% of the no-script run",
		RowHeader: "script", Columns: []string{"drop"}, Trials: trials, Bars: true,
		Note: "1 - pairs per second / the no-script row's median"}
	b.progress(pairsTab.Title)
	var base float64
	for i, d := range append([]time.Duration{0}, scriptDurations...) {
		var rates, drops []float64
		for range trials {
			rate, err := b.scriptLoadRun(d, window)
			if err != nil {
				return nil, fmt.Errorf("script-pairs, %s: %w", d, err)
			}
			rates = append(rates, rate)
		}
		label := "no script"
		if d > 0 {
			label = d.String() + " scripts"
		}
		s := summarize(rates)
		if i == 0 {
			base = s.Median
		}
		for _, r := range rates {
			if base > 0 {
				// Rounded to 1e-6 %: the no-script row's median is 0, not -1e-14.
				drops = append(drops, math.Round(1e8*(1-r/base))/1e6)
			}
		}
		pairsTab.Rows = append(pairsTab.Rows, Row{Label: label, X: float64(i), Cells: []Stat{s}})
		drop.Rows = append(drop.Rows, Row{Label: label, X: float64(i), Cells: []Stat{summarize(drops)}})
	}
	return []*Table{pairsTab, drop}, nil
}

// scriptLoadRun is one trial of scriptLoad: pairs per second beside
// scripts of d (none when d is 0) for window.
func (b *bencher) scriptLoadRun(d, window time.Duration) (float64, error) {
	var stop atomic.Bool
	wait := func() error { return nil }
	if d > 0 {
		w, err := b.loop(func(c *client) error {
			for !stop.Load() {
				if err := b.busyScript(c, d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		wait = w
	}
	timer := time.AfterFunc(window, func() { stop.Store(true) })
	defer timer.Stop()
	start := time.Now()
	n, _, err := pairs(b.c, b.key("sp"), &stop)
	elapsed := time.Since(start)
	stop.Store(true)
	if werr := wait(); err == nil {
		err = werr
	}
	return float64(n) / elapsed.Seconds(), err
}

// scriptStall: script-stall, the longest wait of a PING sent while one
// stallScript script runs, PINGs sent back to back from before it starts
// until it answers.
func (b *bencher) scriptStall(trials int, conf string) (*Table, error) {
	d := stallScript
	if b.o.Quick {
		d /= 4
	}
	tab := &Table{ID: "script-stall", Title: "Slow scripts: another client's stall", Unit: "ms", RowHeader: "script",
		Columns: []string{"longest PING wait", "script's round trip"}, Trials: trials, Bars: true,
		Note: fmt.Sprintf("PINGs back to back on one connection while another runs one EVAL of a %s loop; "+
			"a PING answered BUSY (past busy-reply-threshold) ends its wait; %s", d, conf)}
	b.progress(tab.Title)
	var waits, rts []float64
	for range trials {
		var stop atomic.Bool
		var longest time.Duration
		wait, err := b.loop(func(c *client) error {
			for !stop.Load() {
				start := time.Now()
				if _, err := c.do([]byte("PING")); err != nil && !isBusy(err) {
					return err
				}
				longest = max(longest, time.Since(start))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		time.Sleep(20 * time.Millisecond) // the pings run before the script
		start := time.Now()
		err = b.busyScript(b.c, d)
		rt := time.Since(start)
		stop.Store(true)
		if werr := wait(); err == nil {
			err = werr
		}
		if err != nil {
			return nil, fmt.Errorf("script-stall: %w", err)
		}
		waits = append(waits, float64(longest)/float64(time.Millisecond))
		rts = append(rts, float64(rt)/float64(time.Millisecond))
	}
	tab.Rows = []Row{{Label: d.String() + " script", Cells: []Stat{summarize(waits), summarize(rts)}}}
	return tab, nil
}
