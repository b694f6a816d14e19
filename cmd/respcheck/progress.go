package main

import (
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/respcheck/respcheck/runner"
)

// progress shows a bar on a terminal while a run goes on.
type progress struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func newProgress(w io.Writer) *progress {
	return &progress{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))}
}

func (p *progress) start(total int) {
	p.bar = p.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name("cases "), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)),
		mpb.BarRemoveOnComplete())
}

func (p *progress) result(*runner.Result) {
	if p.bar != nil {
		p.bar.Increment()
	}
}

func (p *progress) wait() {
	if p.bar != nil && !p.bar.Completed() {
		p.bar.Abort(true)
	}
	p.p.Wait()
}
