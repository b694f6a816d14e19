package bench

import (
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
	for i, t := range r.Tables {
		p, err := tablePlot(t)
		if err != nil {
			return fmt.Errorf("bench: chart of %s: %w", t.ID, err)
		}
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
			plots[i][j].Draw(canvases[i][j])
		}
	}
	_, err = c.WriteTo(w)
	return err
}

func tablePlot(t *Table) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = t.Title
	if t.Trials > 0 {
		p.Title.Text += fmt.Sprintf(" (%d trials per cell)", t.Trials)
	}
	p.Y.Label.Text = t.Unit
	p.X.Label.Text = t.RowHeader
	// Sizes and batch sizes span decades: lines on a log axis; the variants
	// of the rate-limiter table are bars. A log axis needs a positive value.
	// The contention tables (by client count) hold zeros: bars too.
	logY := !t.Bars && t.ID != "incr-expire" && !strings.HasPrefix(t.ID, "contention") && hasPositive(t)
	switch {
	case !hasSupported(t):
		p.Title.Text += "\n(nothing measurable on this server: " + NotSupported + ")"
	case !hasPositive(t):
		p.Title.Text += "\n(every cell is 0)"
	}
	p.Legend.Left = true
	p.Legend.Top = t.ID != "batch" // where the lines leave room
	p.Legend.XOffs = vg.Inch / 8
	if p.Legend.Top {
		p.Legend.YOffs = -vg.Inch / 8 // below the title
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Padding = vg.Inch / 4
	}
	labels := make([]string, len(t.Rows))
	for i, row := range t.Rows {
		labels[i] = row.Label
		if !logY {
			labels[i] = strings.ReplaceAll(labels[i], ", ", ",\n")
			if len(row.Cells) == 1 && !row.Cells[0].Supported {
				labels[i] += "\n(not supported)"
			}
		}
	}
	n := len(t.Columns)
	barWidth := vg.Length(48/max(n, 1)) * vg.Millimeter / 4
	for ci, col := range t.Columns {
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
			xys = append(xys, plotter.XY{X: float64(ri), Y: s.Median})
			low := s.Median - s.P10
			if logY {
				low = min(low, s.Median*0.999) // the bar's end stays above 0
			}
			errs = append(errs, struct{ Low, High float64 }{low, s.P90 - s.Median})
		}
		label := col
		if !supported {
			label += " (" + NotSupported + ")"
		}
		clr := palette[ci%len(palette)]
		if logY {
			// Lines on a log axis: bars would start at 0.
			if len(xys) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color = clr, clr
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = clr
			p.Add(line, points, eb)
			p.Legend.Add(label, line, points)
			continue
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, err
		}
		bars.Color = clr
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(ci-n/2)*barWidth + barWidth*vg.Length(1-n%2)/2
		p.Add(bars)
		if n > 1 {
			p.Legend.Add(label, bars)
		}
	}
	if !logY && n > 1 {
		// Room above the bars for the legend, and beside the outer groups.
		if p.Y.Max > 0 {
			p.Y.Max *= 1.5
		}
		p.X.Min, p.X.Max = p.X.Min-0.5, p.X.Max+0.5
	}
	p.NominalX(labels...)
	return p, nil
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
