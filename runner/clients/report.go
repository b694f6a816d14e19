package clients

// Matrix returns the worst verdict per case (rows, "file/name") and client
// (columns), in report order. The report writers are in runner/report.
func Matrix(rep *Report) (rows []string, cols []string, cell map[[2]string]Verdict) {
	cell = map[[2]string]Verdict{}
	seenR, seenC := map[string]bool{}, map[string]bool{}
	for _, res := range rep.Results {
		r, c := res.Case.FullName(), res.Client
		if !seenR[r] {
			seenR[r] = true
			rows = append(rows, r)
		}
		if !seenC[c] {
			seenC[c] = true
			cols = append(cols, c)
		}
		k := [2]string{r, c}
		if old, ok := cell[k]; !ok || res.Verdict > old {
			cell[k] = res.Verdict
		}
	}
	return rows, cols, cell
}
