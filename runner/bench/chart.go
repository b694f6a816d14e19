package bench

import (
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette colours the columns of a table.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// WriteSVG draws the tables as an SVG chart, one panel per table in a grid
// of two columns: for the tables by size or batch size, lines of the
// medians with p10-p90 error bars on a logarithmic axis; for the
// rate-limiter variants, bars. Unsupported cells are left out; a table with
// nothing measurable (every cell unsupported on this server) is an empty
// panel that says so. A panic of the plotting library is returned as an
// error.
func (r *Report) WriteSVG(w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bench: drawing the chart failed: %v", p)
		}
	}()
	const cols = 2
	rows := (len(r.Tables) + cols - 1) / cols
	if rows == 0 {
		return fmt.Errorf("bench: no tables to draw")
	}
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	legends := map[*plot.Plot][]legendItem{}
	for i, t := range r.Tables {
		p, leg, err := tablePlot(t)
		if err != nil {
			return fmt.Errorf("bench: chart of %s: %w", t.ID, err)
		}
		legends[p] = leg
		plots[i/cols][i%cols] = p
	}
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] == nil {
				plots[i][j] = plot.New()
				plots[i][j].HideAxes()
			}
		}
	}
	width, height := 12*vg.Inch, vg.Length(rows)*4.5*vg.Inch
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	// The title's text handler draws one line: the link and the server's
	// configuration go on a second.
	title := fmt.Sprintf("respcheck bench: %s %s, RESP%d, %d trials per cell (median, p10-p90)",
		r.Server.Family, r.Server.Version, r.Proto, r.Trials)
	sub := fmt.Sprintf("link: %s (PING %s ms); %s", r.Link, figure(r.RTT.Median), strings.Join(r.Config, ", "))
	top := dc
	top.Min.Y = top.Max.Y - 0.3*vg.Inch
	font := plot.DefaultFont
	font.Size = 14
	sty := draw.TextStyle{Color: color.Black, Font: font, XAlign: draw.XCenter, YAlign: draw.YCenter,
		Handler: plot.DefaultTextHandler}
	top.FillText(sty, vg.Point{X: (top.Min.X + top.Max.X) / 2, Y: (top.Min.Y + top.Max.Y) / 2}, title)
	sty.Font.Size = 11
	top.FillText(sty, vg.Point{X: (top.Min.X + top.Max.X) / 2, Y: top.Min.Y - 0.1*vg.Inch}, sub)
	dc.Max.Y -= 0.55 * vg.Inch
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Inch / 3, PadY: vg.Inch / 3,
		PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		for j := range plots[i] {
			drawPanel(plots[i][j], legends, canvases[i][j])
		}
	}
	_, err = c.WriteTo(w)
	return err
}

// legendItem is one entry of a panel's legend: a column's name and the
// thumbnails of how its data is drawn.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// legendStyle is the legends' text style.
func legendStyle() text.Style {
	font := plot.DefaultFont
	font.Size = 10
	return text.Style{Color: color.Black, Font: font, Handler: plot.DefaultTextHandler}
}

// Legend layout: a thumbnail's width, the gap after an entry, a row's
// height.
const (
	thumbWidth = vg.Inch / 4
	legendGap  = vg.Inch / 6
	legendRow  = 14 * vg.Length(1) // points
)

// legendLines places items in rows that fit width, in order.
func legendLines(items []legendItem, width vg.Length) [][]legendItem {
	sty := legendStyle()
	var rows [][]legendItem
	x := width
	for _, it := range items {
		w := thumbWidth + vg.Points(4) + sty.Rectangle(it.label).Max.X + legendGap
		if x+w > width && x > 0 {
			rows, x = append(rows, nil), 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], it)
		x += w
	}
	return rows
}

// drawPanel draws p in c and its legend (legends[p], if any) under it,
// in rows across the panel: outside the plot, never over its lines and
// bars.
func drawPanel(p *plot.Plot, legends map[*plot.Plot][]legendItem, c draw.Canvas) {
	items := legends[p]
	if len(items) == 0 {
		p.Draw(c)
		return
	}
	rows := legendLines(items, c.Max.X-c.Min.X)
	height := legendRow*vg.Length(len(rows)) + vg.Points(4)
	pc := c
	pc.Min.Y += height
	p.Draw(pc)
	sty := legendStyle()
	sty.YAlign = draw.YCenter
	for k, row := range rows {
		y := c.Min.Y + height - legendRow*vg.Length(k+1) + legendRow/2
		x := c.Min.X
		for _, it := range row {
			icon := &draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - legendRow/2 + vg.Points(2)}, Max: vg.Point{X: x + thumbWidth, Y: y + legendRow/2 - vg.Points(2)}}}
			for _, t := range it.thumbs {
				t.Thumbnail(icon)
			}
			c.FillText(sty, vg.Point{X: x + thumbWidth + vg.Points(4), Y: y}, it.label)
			x += thumbWidth + vg.Points(4) + sty.Rectangle(it.label).Max.X + legendGap
		}
	}
}

// wrapAt is the longest axis label kept on one line: a longer one is
// broken at the space nearest its middle.
const wrapAt = 30

// wrap breaks a long label in two lines (wrapAt).
func wrap(s string) string {
	if len(s) <= wrapAt || strings.Contains(s, "\n") {
		return s
	}
	best := -1
	for i := range s {
		if s[i] == ' ' && (best < 0 || abs(i-len(s)/2) < abs(best-len(s)/2)) {
			best = i
		}
	}
	if best < 0 {
		return s
	}
	return s[:best] + "\n" + s[best+1:]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// dwarfs is the ratio of a bar table's largest median to its smallest
// positive one from which bars would hide the small ones: such a table
// is drawn as points on a logarithmic axis instead.
const dwarfs = 20

// dwarfed reports whether t's supported medians are all positive and
// span more than dwarfs.
func dwarfed(t *Table) bool {
	lo, hi := 0.0, 0.0
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if !c.Supported {
				continue
			}
			if c.Median <= 0 {
				return false
			}
			if lo == 0 || c.Median < lo {
				lo = c.Median
			}
			hi = max(hi, c.Median)
		}
	}
	return lo > 0 && hi/lo > dwarfs
}

// tablePlot draws t as one panel, and returns the legend it needs (none
// for a table of one column).
func tablePlot(t *Table) (*plot.Plot, []legendItem, error) {
	var legend []legendItem
	p := plot.New()
	p.Title.Text = t.Title
	if t.Trials > 0 {
		p.Title.Text += fmt.Sprintf(" (%d trials per cell)", t.Trials)
	}
	p.Y.Label.Text = wrap(t.Unit)
	p.X.Label.Text = t.RowHeader
	// Sizes and batch sizes span decades: lines on a log axis (which needs
	// a positive value). Rows that are not an ordered quantity (variants,
	// scripts) and client counts (whose tables hold zeros) are bars; bars
	// where the largest dwarfs the smallest are points on a log axis.
	lines := !t.Bars && (t.RowHeader == "size" || t.RowHeader == "items") && hasPositive(t)
	dots := !lines && dwarfed(t)
	logY := lines || dots
	switch {
	case !hasSupported(t):
		p.Title.Text += "\n(nothing measurable on this server: " + notSupported + ")"
	case !hasPositive(t):
		p.Title.Text += "\n(every cell is 0)"
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Padding = vg.Inch / 4
	}
	labels := make([]string, len(t.Rows))
	for i, row := range t.Rows {
		labels[i] = row.Label
		if !lines {
			labels[i] = strings.ReplaceAll(labels[i], ", ", ",\n")
			if len(row.Cells) == 1 && !row.Cells[0].Supported {
				labels[i] += "\n(not supported)"
			}
		}
	}
	n := len(t.Columns)
	for ci := range t.Columns {
		item, err := addColumn(p, t, ci, lines, dots)
		if err != nil {
			return nil, nil, err
		}
		if item != nil && n > 1 {
			legend = append(legend, *item)
		}
	}
	if !logY {
		if n > 1 { // room beside the outer groups
			p.X.Min, p.X.Max = p.X.Min-0.5, p.X.Max+0.5
		}
		if p.Y.Max > 0 { // and above the highest bar
			p.Y.Max *= 1.08
		}
	}
	if dots {
		p.X.Min, p.X.Max = -0.5, float64(len(t.Rows))-0.5
	}
	p.NominalX(labels...)
	return p, legend, nil
}

// addColumn draws column ci of t on p: points (dots) or lines with
// p10-p90 bars on p's log axis, else bars; it returns the column's
// legend entry (nil when nothing is drawn on the log axis).
func addColumn(p *plot.Plot, t *Table, ci int, lines, dots bool) (*legendItem, error) {
	logY := lines || dots
	n, col := len(t.Columns), t.Columns[ci]
	barWidth := vg.Length(48/max(n, 1)) * vg.Millimeter / 4
	vals := make(plotter.Values, len(t.Rows))
	xys := make(plotter.XYs, 0, len(t.Rows))
	var errs plotter.YErrors
	supported := false
	for ri, row := range t.Rows {
		s := row.Cells[ci]
		if !s.Supported {
			continue
		}
		supported = true
		vals[ri] = s.Median
		if logY && s.Median <= 0 {
			continue // no point on a log axis
		}
		x := float64(ri)
		if dots { // the columns side by side around the row
			x += (float64(ci) - float64(n-1)/2) * 0.15
		}
		xys = append(xys, plotter.XY{X: x, Y: s.Median})
		low := s.Median - s.P10
		if logY {
			low = min(low, s.Median*0.999) // the bar's end stays above 0
		}
		errs = append(errs, struct{ Low, High float64 }{low, s.P90 - s.Median})
	}
	label := col
	if !supported {
		label += " (" + notSupported + ")"
	}
	clr := palette[ci%len(palette)]
	if dots {
		if len(xys) == 0 {
			return nil, nil
		}
		points, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		points.Color = clr
		points.GlyphStyle.Radius = vg.Points(4)
		points.GlyphStyle.Shape = draw.CircleGlyph{}
		eb, err := errorBars(xys, errs, clr)
		if err != nil {
			return nil, err
		}
		p.Add(points, eb)
		return &legendItem{label, []plot.Thumbnailer{points}}, nil
	}
	if logY {
		// Lines on a log axis: bars would start at 0.
		if len(xys) == 0 {
			return nil, nil
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = clr, clr
		eb, err := errorBars(xys, errs, clr)
		if err != nil {
			return nil, err
		}
		p.Add(line, points, eb)
		return &legendItem{label, []plot.Thumbnailer{line, points}}, nil
	}
	bars, err := plotter.NewBarChart(vals, barWidth)
	if err != nil {
		return nil, err
	}
	bars.Color = clr
	bars.LineStyle.Width = 0
	bars.Offset = vg.Length(ci-n/2)*barWidth + barWidth*vg.Length(1-n%2)/2
	p.Add(bars)
	return &legendItem{label, []plot.Thumbnailer{bars}}, nil
}

// errorBars are the p10-p90 bars of the medians xys (errs: how far
// below and above each they reach), in colour clr.
func errorBars(xys plotter.XYs, errs plotter.YErrors, clr color.Color) (*plotter.YErrorBars, error) {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return nil, err
	}
	eb.Color = clr
	return eb, nil
}

// hasSupported reports whether some cell of t was measured.
func hasSupported(t *Table) bool { return anyCell(t, func(c Stat) bool { return c.Supported }) }

// hasPositive reports whether some supported cell of t has a positive
// median.
func hasPositive(t *Table) bool {
	return anyCell(t, func(c Stat) bool { return c.Supported && c.Median > 0 })
}

// anyCell reports whether f holds for some cell of t.
func anyCell(t *Table, f func(Stat) bool) bool {
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if f(c) {
				return true
			}
		}
	}
	return false
}
