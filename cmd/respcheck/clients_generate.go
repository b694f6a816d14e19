package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/resp"
	"github.com/respcheck/respcheck/runner/clients"
	"github.com/respcheck/respcheck/runner/replies"
)

// generateFlags are the flags of respcheck clients --generate.
type generateFlags struct {
	duration time.Duration
	frames   int
	seed     uint64
	noShrink bool
	// set says whether a flag of the command was given (pflag's Changed).
	set func(name string) bool
}

func (g *generateFlags) register(fl *pflag.FlagSet) {
	g.set = fl.Changed
	fl.DurationVar(&g.duration, "generate", 0, "instead of case files, serve generated replies (every RESP type, nested, empty and wide aggregates, attributes, pushes, extreme numbers, strings that are not UTF-8) to the libraries for this `duration`, then shrink each finding to the smallest frame that gives it")
	fl.IntVar(&g.frames, "frames", 0, "with --generate: stop after this many frames per protocol (0: when the duration ends)")
	fl.Uint64Var(&g.seed, "seed", 0, "with --generate: draw the frames from this seed (0: a random one, printed)")
	fl.BoolVar(&g.noShrink, "no-shrink", false, "with --generate: report each finding's first frame as generated")
}

func (g *generateFlags) on() bool { return g.duration > 0 || g.frames > 0 }

// generateAlone are the flags of respcheck clients that do not apply to
// --generate: it serves replies of its own (no case files, no proxy
// fault) and reads them with the generator's own nesting (up to 120
// levels).
var generateAlone = []string{"run", "var", "split", "extra-after", "max-depth", "matrix"}

// check is the usage error of flags given that do not go with the others:
// --seed or --no-shrink without --generate or --frames, or with them a
// flag of generateAlone or case files (paths).
func (g *generateFlags) check(paths []string) error {
	set := func(name string) bool { return g.set != nil && g.set(name) }
	if !g.on() {
		for _, n := range []string{"seed", "no-shrink"} {
			if set(n) {
				return usageErr("--%s goes with --generate DURATION or --frames N", n)
			}
		}
		return nil
	}
	for _, n := range generateAlone {
		if set(n) {
			return usageErr("--%s does not apply to --generate, which serves generated replies instead of cases", n)
		}
	}
	if len(paths) > 0 {
		return usageErr("--generate serves generated replies instead of cases: no case files (%s)", paths[0])
	}
	return nil
}

// runGenerated is respcheck clients --generate: generated replies through
// every selected client, each finding class shrunk.
func runGenerated(ctx context.Context, stdout, stderr io.Writer, f clientsFlags, t endpoint, drivers []clients.Driver, protos []int) error {
	if f.format != "" && f.format != "human" && f.format != "json" {
		return usageErr("--generate writes --format human or json (respcheck report makes the HTML page of the JSON), not %s", f.format)
	}
	seed := f.generate.seed
	if seed == 0 {
		seed = rand.Uint64N(1 << 32)
	}
	fmt.Fprintf(stderr, "respcheck: generated replies, seed %d\n", seed)
	opts := replies.Options{Target: t.Config, Drivers: drivers, Protos: protos, Seed: seed, Frames: f.generate.frames,
		Duration: f.generate.duration, Jobs: f.jobs, NoShrink: f.generate.noShrink}
	// An explicit --timeout, else the generator's own (replies.Options).
	if f.generate.set != nil && f.generate.set("timeout") {
		opts.StepTimeout = f.timeout
	}
	last := time.Now()
	opts.Progress = func(p replies.Progress) {
		if time.Since(last) < 15*time.Second {
			return
		}
		last = time.Now()
		if p.Shrunk > 0 {
			fmt.Fprintf(stderr, "respcheck: %d of %d findings shrunk\n", p.Shrunk, p.Findings)
		} else {
			fmt.Fprintf(stderr, "respcheck: %d frames judged, %d findings\n", p.Frames, p.Findings)
		}
	}
	rep, err := replies.Run(ctx, opts)
	if errors.Is(err, replies.ErrNoClient) {
		return usageErr("%v", err)
	}
	if err != nil {
		return serverErr(fmt.Errorf("%v%s", err, spawnedLog(t)))
	}
	var buf bytes.Buffer
	if f.format == "json" {
		err = writeGeneratedJSON(&buf, rep)
	} else {
		writeGeneratedHuman(&buf, rep)
	}
	if err == nil {
		err = writeOutput(stdout, f.out, buf.Bytes(), true)
	}
	if err != nil {
		return err
	}
	switch {
	case rep.ServerLost != "":
		return serverErr(fmt.Errorf("%s%s", rep.ServerLost, spawnedLog(t)))
	case ctx.Err() != nil:
		return interruptedErr("interrupted; the report above has the findings gathered so far")
	case len(rep.Findings) > 0:
		return &exitError{code: exitFindings, err: errSilent}
	}
	return nil
}

func writeGeneratedHuman(w io.Writer, rep *replies.Report) {
	fmt.Fprintf(w, "generated replies, seed %d, on %s %s, %s\n\n", rep.Seed, rep.Server.Family, rep.Server.Version, rep.Duration.Round(time.Second))
	for _, lib := range slices.Sorted(maps.Keys(rep.NotServed)) {
		fmt.Fprintf(w, "%s: not served: %s\n", lib, rep.NotServed[lib])
	}
	for _, c := range rep.Clients {
		var fs []*replies.Finding
		for _, x := range rep.Findings {
			if x.Client == c.Name {
				fs = append(fs, x)
			}
		}
		fmt.Fprintf(w, "%s: %d frames judged in %s, %d findings\n", c.Label(), rep.Judged[c.Name], rep.Busy[c.Name].Round(time.Millisecond), len(fs))
		for _, x := range fs {
			fmt.Fprintf(w, "  %s (%s %s), %d frames, %s, answering %s: %s\n", x.Verdict, x.Rule, x.Kind, x.Count, x.Shrunk.Class, x.Command(), cut(resp.Escape(x.Shrunk.Bytes()), 300))
			if !x.Alone {
				fmt.Fprintf(w, "      not shrunk: the frame as generated, after %d others on its connection (--no-shrink, the shrink budget ran out, or it gives the class only after them)\n", len(x.Before))
			}
			for i, n := range x.Notes {
				if i == 3 {
					fmt.Fprintf(w, "      … and %d more notes (--format json)\n", len(x.Notes)-3)
					break
				}
				fmt.Fprintf(w, "      %s\n", cut(n, 300))
			}
			if x.Canary != "" {
				fmt.Fprintf(w, "      canary: %s\n", x.Canary)
			}
			if lua, ok := x.Shrunk.Lua(); ok {
				fmt.Fprintf(w, "      server command: EVAL %s 0\n", cut(strconv.Quote(lua), 300))
			}
		}
	}
}

func writeGeneratedJSON(w io.Writer, rep *replies.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep.JSON())
}

// cut is s, or its first n bytes and how long it is.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}
