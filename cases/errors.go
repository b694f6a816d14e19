package cases

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in a case file. Line and Col are 1-based; a zero Line
// means the position is the whole file.
type Pos struct {
	File      string
	Line, Col int
}

// String returns "file:line:col", or just "file" when Line is zero.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Compare orders positions by file, line, then column.
func (p Pos) Compare(o Pos) int {
	return cmp.Or(strings.Compare(p.File, o.File), cmp.Compare(p.Line, o.Line), cmp.Compare(p.Col, o.Col))
}

// Error is one problem in a case file, at a position.
type Error struct {
	Pos Pos
	Msg string
}

// Error returns "file:line:col: msg".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is every problem found while loading, sorted by position.
type ErrorList []*Error

// Error joins the errors with newlines.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.As find the individual *Error values.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sort orders the list by position (stable, so messages at the same
// position keep the order in which they were found).
func (l ErrorList) sort() {
	slices.SortStableFunc(l, func(a, b *Error) int { return a.Pos.Compare(b.Pos) })
}

// err returns the list as an error, or nil if it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	l.sort()
	return l
}
