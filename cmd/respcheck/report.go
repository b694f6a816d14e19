package main

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/report/page"
)

const reportLong = `Report writes one self-contained HTML page (inline CSS and script, no
network: it opens from disk and attaches to a CI run) from the JSON reports
of "respcheck run --format json" and "respcheck clients --format json" and
from golden directories written by "respcheck record":

  - a servers × case-files matrix: per cell the cases passed (✓), known
    differences (≈), skipped (○), failed (✗) and errors (!), with totals;
    each file opens its servers × cases table (statuses and reasons);
  - every case whose recorded bytes differ between the golden directories
    and run reports (each compared with the first, as "respcheck diff"
    compares golden directories), the replies
    side by side escaped and as redis-cli prints them, the first differing
    byte marked, each server's status and reason beside them;
  - one cases × clients matrix of verdicts per clients report, each cell
    opening the bytes the library received and the value it returned;
  - per report of "respcheck coverage --format json", the commands and
    subcommands the cases send, by command group, with those not sent;
  - per report of "respcheck bench --format json", its chart (inline SVG:
    medians with p10-p90 bars) and its tables of medians;
  - per report of "respcheck explore --format json", its findings in
    groups, each shrunk sequence with the two replies;
  - per report of "respcheck clients --generate --format json", a row per
    client (frames served and judged) and each finding's shrunk frame,
    its class (served or spec-only), the EVAL that makes a server send it
    and the judge's notes;
  - filters by server, tag and status, and a search box.

The run and clients reports and the golden directories may be mixed, in
any order: each run report and golden directory is one column of the server
matrix, in the order given, and each is compared with the first: golden
directories hold every reply, a run report every step's bytes with its
key prefix, replaced as the goldens' is (a cluster run's node addresses
are not normalised); a run report also gives each case's failing step.
A client matrix file (docs/generated/client-matrix.json, written by the client
matrix tests) is one cases × clients matrix per server. "respcheck run
--format html" and "respcheck clients --format html" write the page of
one run.

Exit status: 0 written, 2 usage error (an input that is neither a golden
directory nor a JSON report of run, clients, coverage, bench, explore or
clients --generate, named in the message).`

func newReportCmd() *cobra.Command {
	return newCommand("report [-o FILE] INPUT...", "Write one HTML page from run and clients reports and golden directories",
		reportLong, cobra.MinimumNArgs(1), runReportCmd)
}

type reportFlags struct {
	out string
}

// register registers the flags of respcheck report.
func (f *reportFlags) register(fl *pflag.FlagSet) {
	fl.StringVarP(&f.out, "out", "o", "", "write the page to `file` instead of stdout")
}

func runReportCmd(_ context.Context, stdout, _ io.Writer, f reportFlags, args []string) error {
	var inputs []page.Input
	for _, a := range args {
		in, err := page.Load(a)
		var nr *page.NotReportError
		switch {
		case errors.As(err, &nr):
			return caseErr(err)
		case err != nil:
			return usageErr("%v", err)
		}
		inputs = append(inputs, in)
	}
	var buf bytes.Buffer
	if err := page.Write(&buf, inputs); err != nil {
		return err
	}
	return writeOutput(stdout, f.out, buf.Bytes(), true)
}
