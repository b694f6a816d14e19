package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// scriptBusyKill: script-busy (a script running past busy-reply-threshold
// and the BUSY errors another client meets) and, on a throwaway server,
// script-kill. On a throwaway server the threshold is set to busyThreshold
// for both and restored after; a shared server's (ms, known) is used as
// it is, and script-busy is not run when it is unknown or above
// maxBusyThreshold. kill is nil on a shared server. clockName says which
// clock the loops use (scriptClock).
func (b *bencher) scriptBusyKill(trials, ms int, known bool, clockName string) (busy, kill *Table, err error) {
	thr := time.Duration(ms) * time.Millisecond
	busy = &Table{ID: "script-busy", Title: "Slow scripts: past busy-reply-threshold", Unit: "replies",
		RowHeader: "script", Columns: []string{"BUSY errors"}, Trials: trials, Bars: true}
	b.progress(busy.Title)
	if b.o.Throwaway {
		if _, err := b.c.doString("CONFIG", "SET", "busy-reply-threshold", strconv.FormatInt(busyThreshold.Milliseconds(), 10)); err != nil {
			return nil, nil, err
		}
		defer b.c.doString("CONFIG", "SET", "busy-reply-threshold", strconv.Itoa(ms))
		thr = busyThreshold
		busy.Note = fmt.Sprintf("busy-reply-threshold=%d ms set with CONFIG SET on this throwaway server (was %d ms, "+
			"restored after); ", thr.Milliseconds(), ms)
	} else if known {
		busy.Note = fmt.Sprintf("busy-reply-threshold=%d ms: this server's, never changed; ", ms)
	}
	if !b.o.Throwaway && (!known || thr > maxBusyThreshold) {
		why := fmt.Sprintf("not run: busy-reply-threshold %d ms is over %s", ms, maxBusyThreshold)
		if !known {
			why = "not run: busy-reply-threshold unknown (CONFIG GET refused)"
		}
		busy.Note += why + " (a trial lasts the threshold plus 500 ms); set it lower on a server of your own, or let respcheck start one"
		ns := Stat{Note: why}
		busy.Rows = []Row{{Label: "script past the threshold", Cells: []Stat{ns}}}
		return busy, nil, nil
	}
	d := thr + 500*time.Millisecond
	busy.Note += fmt.Sprintf("one EVAL of a %s loop while another connection makes GET+SET pairs on an unrelated key "+
		"until it answers: before the threshold the pairs wait, after it each command is answered BUSY; the script is %s; %s",
		d, clockName, scriptScope)
	var busies []float64
	for range trials {
		var stop atomic.Bool
		var nbusy int
		wait, err := b.loop(func(c *client) error {
			var err error
			_, nbusy, err = pairs(c, b.key("sb"), &stop)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		time.Sleep(20 * time.Millisecond)
		err = b.busyScript(b.c, d)
		stop.Store(true)
		if werr := wait(); err == nil {
			err = werr
		}
		if err != nil {
			return nil, nil, fmt.Errorf("script-busy: %w", err)
		}
		busies = append(busies, float64(nbusy))
	}
	busy.Rows = []Row{{Label: d.String() + " script", Cells: []Stat{summarize(busies)}}}
	if !b.o.Throwaway {
		return busy, nil, nil
	}
	kill, err = b.scriptKill(trials)
	return busy, kill, err
}

// scriptKill: script-kill, SCRIPT KILL sent while a read-only script runs
// and while one that wrote first runs (on a throwaway server, past
// busyThreshold).
func (b *bencher) scriptKill(trials int) (*Table, error) {
	tab := &Table{ID: "script-kill", Title: "Slow scripts: SCRIPT KILL", Unit: "trials (of each cell's)",
		RowHeader: "script", Columns: []string{"KILL answered OK", "KILL answered UNKILLABLE", "script stopped early", "writes kept (of 2)"},
		Trials: trials, Bars: true,
		Note: fmt.Sprintf("SCRIPT KILL on another connection %s after the EVAL, answered once the script passes "+
			"busy-reply-threshold (%s here): a read-only 2s loop; a script that SETs one key, loops 400ms, SETs a "+
			"second; 'stopped early' means the EVAL answered an error before its loop's end; stopping the writing "+
			"script takes SHUTDOWN NOSAVE, which ends the server the other tables use: not run here; "+
			"testdata/servers/repro/script-shutdown-nosave.sh shows that after it and a restart from an "+
			"appendfsync always AOF the script's first write is not there either (its effects reach the AOF when it ends)", 30*time.Millisecond, busyThreshold)}
	b.progress(tab.Title)
	rows := []struct {
		label  string
		script string
		d      time.Duration
		writes bool
	}{
		{"read-only script", luaBusy(b.clock, false), 2 * time.Second, false},
		{"script that wrote first", luaBusy(b.clock, true), 400 * time.Millisecond, true},
	}
	for i, r := range rows {
		var figs [4][]float64
		for range trials {
			k1, k2 := b.key("sk"), b.key("sk")
			var stoppedEarly bool
			wait, err := b.loop(func(c *client) error {
				args := [][]byte{[]byte("EVAL"), []byte(r.script), []byte("0")}
				if r.writes {
					args = [][]byte{[]byte("EVAL"), []byte(r.script), []byte("2"), k1, k2}
				}
				start := time.Now()
				_, err := c.do(append(args, strconv.AppendInt(nil, r.d.Milliseconds(), 10))...)
				var re *replyError
				if errors.As(err, &re) {
					stoppedEarly = time.Since(start) < r.d
					return nil
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			time.Sleep(30 * time.Millisecond)
			_, kerr := b.c.doString("SCRIPT", "KILL")
			err = wait()
			var re *replyError
			if err == nil && kerr != nil && !errors.As(kerr, &re) {
				err = kerr
			}
			if err != nil {
				return nil, fmt.Errorf("script-kill, %s: %w", r.label, err)
			}
			figs[0] = append(figs[0], b2f(kerr == nil))
			figs[1] = append(figs[1], b2f(re != nil && strings.HasPrefix(re.text, "UNKILLABLE")))
			figs[2] = append(figs[2], b2f(stoppedEarly))
			v, err := b.c.do([]byte("EXISTS"), k1, k2)
			if err != nil {
				return nil, err
			}
			if err := want("EXISTS", v, v.Kind == resp.Integer); err != nil {
				return nil, err
			}
			figs[3] = append(figs[3], float64(v.Int))
		}
		row := Row{Label: r.label, X: float64(i)}
		for j, f := range figs {
			row.Cells = append(row.Cells, summarize(f))
			if j == 3 && !r.writes {
				row.Cells[j] = Stat{Note: "no writes"}
			}
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab, nil
}

func b2f(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}
