package cases

import (
	"fmt"
	"strings"
)

// dumpStep renders a step compactly, for comparing parsed structures in
// tests.
func dumpStep(s *Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", s.Index, s.Action)
	if s.Conn != "" && s.Conn != DefaultConn {
		fmt.Fprintf(&b, "@%s", s.Conn)
	}
	switch s.Action {
	case ActSend:
		for i := range s.Send {
			fmt.Fprintf(&b, " %s", s.Send[i].Source())
		}
	case ActRaw:
		fmt.Fprintf(&b, " %q", s.Raw.Source())
	case ActSleep:
		fmt.Fprintf(&b, " %s", s.Sleep)
	}
	if s.Async {
		b.WriteString(" async")
	}
	if s.Timeout != 0 {
		fmt.Fprintf(&b, " timeout=%s", s.Timeout)
	}
	if s.Capture != "" {
		fmt.Fprintf(&b, " capture=%s", s.Capture)
	}
	for _, v := range s.Expect {
		b.WriteString(" | ")
		if !v.When.IsZero() {
			fmt.Fprintf(&b, "[%s] ", v.When.Text)
		}
		b.WriteString(dumpExpect(v.Expect))
	}
	return b.String()
}

func dumpExpect(e *Expect) string {
	switch e.Kind {
	case ExpectBytes:
		return fmt.Sprintf("reply %q", e.Bytes.Source())
	case ExpectValue:
		return "value " + dumpValue(e.Value)
	case ExpectError, ExpectErrorCode:
		return fmt.Sprintf("%s %q", e.Kind, e.Text.Source())
	case ExpectErrorMatch:
		return fmt.Sprintf("error_match %q", e.Pattern.String())
	}
	return e.Kind.String()
}

func dumpValue(v *TypedValue) string {
	var b strings.Builder
	if v.Attr != nil {
		fmt.Fprintf(&b, "attr%s ", dumpElems(v.Attr))
	}
	switch {
	case v.Any:
		b.WriteString("any")
	case v.KindOnly && v.Match != nil:
		fmt.Fprintf(&b, "type(%s)~%q", kindName(v.Kind), v.Match)
	case v.KindOnly:
		fmt.Fprintf(&b, "type(%s)", kindName(v.Kind))
	case v.Match != nil:
		fmt.Fprintf(&b, "~%q", v.Match)
	default:
		b.WriteString(strings.ReplaceAll(kindName(v.Kind), " ", "_"))
		if v.Unordered {
			b.WriteString("(unordered)")
		}
		switch {
		case v.Text != nil && v.Format != "":
			fmt.Fprintf(&b, "(%s)%q", v.Format, v.Text.Source())
		case v.Text != nil:
			fmt.Fprintf(&b, "%q", v.Text.Source())
		case v.Elems != nil:
			b.WriteString(dumpElems(v.Elems))
		case v.Kind == kindInteger:
			fmt.Fprintf(&b, "(%d)", v.Int)
		case v.Kind == kindBoolean:
			fmt.Fprintf(&b, "(%t)", v.Bool)
		}
	}
	return b.String()
}

func dumpElems(es []*TypedValue) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = dumpValue(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
