package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/respcheck/respcheck/runner/bench"
)

// quickBench is a committed respcheck bench --quick --format json of
// Redis 8.6.3 (every table of the bench, 2 trials a cell), whose chart
// TestBenchChartInBrowser draws.
const quickBench = "../../testdata/bench/quick-redis-8.6.3.json"

// chartProblems is the script that finds what a reader of the chart
// could not read, in the page's first SVG: a text outside the drawing
// (cut at its edge), two texts over each other (a y-axis label run into
// the next panel, legend entries on each other), or a text over the box
// of a drawn path (a legend on the lines or bars). Each problem is a
// line naming the text.
const chartProblems = `(() => {
  const svg = document.querySelector("svg"), sb = svg.getBoundingClientRect();
  const boxes = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "")
    .map(t => ({s: t.textContent.trim(), r: t.getBoundingClientRect()}));
  const out = [];
  const slack = 1;
  for (const b of boxes) {
    if (b.r.left < sb.left - slack || b.r.right > sb.right + slack || b.r.top < sb.top - slack || b.r.bottom > sb.bottom + slack) {
      out.push("outside the chart: " + b.s);
    }
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 2 && h > 2) {
        out.push("over each other: " + boxes[i].s + " | " + boxes[j].s);
      }
    }
  }
  // Lines, bars and points (in the palette's colours, bench's chart.go;
  // axes are black, backgrounds white): a text on one is a legend or a
  // label drawn over the data.
  const marks = [...svg.querySelectorAll("path")].filter(p => /#(1F77B4|FF7F0E|2CA02C|D62728|9467BD)/i.test(p.getAttribute("style") || ""))
    .map(p => p.getBoundingClientRect()).filter(r => r.width > 0 || r.height > 0);
  for (const b of boxes) {
    for (const m of marks) {
      const w = Math.min(b.r.right, m.right) - Math.max(b.r.left, m.left);
      const h = Math.min(b.r.bottom, m.bottom) - Math.max(b.r.top, m.top);
      if (w > 2 && h > 2) {
        out.push("over a line, bar or point: " + b.s);
        break;
      }
    }
  }
  return out.concat(["texts: " + boxes.length]);
})()`

// TestBenchChartInBrowser draws the chart of a quick bench (every table,
// one panel each) and opens it in Chromium: no text is cut at the
// chart's edge or drawn over another; the screenshot is kept beside the
// page for a reader to look at.
func TestBenchChartInBrowser(t *testing.T) {
	bctx, problems := browser(t)
	data, err := os.ReadFile(quickBench)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	s = s[strings.Index(s, "<svg"):]
	page := writeFile(t, "chart.html", "<!doctype html><meta charset=utf-8><title>chart</title><body style=margin:0>"+s)
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("svg"))); err != nil {
		t.Fatal(err)
	}
	found := eval[[]string](t, bctx, chartProblems)
	if n := len(found); n == 0 || !strings.HasPrefix(found[n-1], "texts: ") || found[n-1] == "texts: 0" {
		t.Fatalf("the chart script found no text: %q", found)
	}
	for _, p := range found[:len(found)-1] {
		t.Error(p)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(filepath.Dir(page), "chart.png")
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d tables)", out, len(rep.Tables))
	for _, p := range problems() {
		t.Errorf("console %s", p)
	}
}
