package clients

// RuleDoc is one rule a verdict is decided by: StepView.Rule holds its ID,
// and respcheck clients --explain lists them all. A rule that is a
// library's own (a contract's kinds, a documented conversion, a response
// callback) is completed by the step's notes, which name the library's
// source (file and version).
type RuleDoc struct {
	ID string `json:"id"`
	// Verdicts are the verdicts the rule gives.
	Verdicts []Verdict `json:"verdicts"`
	Text     string    `json:"text"`
}

// The rules' IDs.
const (
	ruleKind       = "kind"
	RuleValue      = "value"
	ruleLength     = "length"
	ruleMember     = "member"
	ruleAttribute  = "attribute"
	ruleConversion = "conversion"
	ruleCallback   = "callback"
	ruleException  = "exception"
	ruleExit       = "exit"
	ruleUnsent     = "unsent"
	ruleEarly      = "early"
	ruleWire       = "wire"
	// ruleInexpressible: see Inexpressible.
	ruleInexpressible = "inexpressible"
	ruleOutput        = "output"
	ruleDelivered     = "delivered"
	ruleHang          = "hang"
	ruleDesync        = "desync"
	ruleMalformed     = "malformed"
	ruleNotJudged     = "not-judged"
)

// Rules are every rule a verdict names, in the order a reader meets them.
var Rules = []RuleDoc{
	{ruleKind, []Verdict{Erased, Mismatch}, "each RESP type decodes to a native kind the library's contract lists for it (clients --explain LIBRARY); a kind that keeps the value but not the RESP type (a simple string as a plain string) is erased, a kind not listed is a mismatch"},
	{RuleValue, []Verdict{Erased, Mismatch}, "a decoded scalar holds the reply's payload: the same text, number or boolean (a double's text rounded to the float it names is erased)"},
	{ruleLength, []Verdict{Mismatch}, "an aggregate decodes to as many elements, and a map to as many entries, as the wire holds"},
	{ruleMember, []Verdict{Mismatch}, "each element of a set and each key of a map is among the decoded ones, whatever their order"},
	{ruleAttribute, []Verdict{Erased}, "an attribute reaches the user beside its value; a library that drops it erases it"},
	{ruleConversion, []Verdict{Converted}, "a reshaping the library documents (the note names it and cites its source, file and version) is converted when nothing is lost"},
	{ruleCallback, []Verdict{Mismatch}, "a response callback the library applies by command name (redis-py's) turned a reply it was not written for into another value: the note names the callback and cites its source"},
	{ruleException, []Verdict{Crash}, "an exception raised, or the connection closed, on a valid reply is a crash"},
	{ruleExit, []Verdict{Crash}, "the library's process died during the call"},
	{ruleUnsent, []Verdict{Mismatch}, "the library returned a value without sending the command"},
	{ruleEarly, []Verdict{Mismatch}, "the library returned a value before any reply arrived"},
	{ruleWire, []Verdict{Mismatch}, "the library sent other bytes than the case's command (the proxy saw them)"},
	{ruleInexpressible, []Verdict{Inexpressible}, "a typed API cannot send a command the case expects the server to accept (no parameter for an argument, a zero value read as unset), or sends it respelled (its own option order, a lower-case digest) and the proxy saw nothing else change: the note names the limit and cites the library's source"},
	{ruleOutput, []Verdict{Mismatch}, "a command-line client prints what its own formatter prints for the reply's frames (resp.CLIOutput, read from the tool's source)"},
	{ruleDelivered, []Verdict{Converted, Erased, Mismatch, Crash, Hang}, "a pub/sub API delivers each frame a subscriber receives as a message with its kind, channel, pattern and payload"},
	{ruleHang, []Verdict{Hang}, "no result within the step's timeout (a command-line client: nor while its process ran, waited for a CPU or printed, or the proxy moved bytes)"},
	{ruleDesync, []Verdict{Desync}, "after a surprise, a canary command on the same connection came back with another reply: every later reply is shifted"},
	{ruleMalformed, []Verdict{Error}, "the server's bytes break RESP: not judged, the server's finding"},
	{ruleNotJudged, []Verdict{Error}, "the step could not be judged for a reason that is not the library's (the harness, a limit, the server stopped answering)"},
}

// ruleOf is the rule a verdict decided outside the judge gets when the
// code that decided it named none: the one rule that gives that verdict
// there. Mismatch, Erased and Converted have several and get none ("").
func ruleOf(v Verdict) string {
	switch v {
	case Crash:
		return ruleException
	case Hang:
		return ruleHang
	case Desync:
		return ruleDesync
	case Error:
		return ruleNotJudged
	}
	return ""
}

// decide sets the step's verdict to v and the rule that decided it.
func (sv *StepView) decide(v Verdict, rule string) {
	sv.Verdict, sv.Rule = v, rule
}

// raise makes the step's verdict v, decided by rule, unless it is worse
// already.
func (sv *StepView) raise(v Verdict, rule string) {
	if v > sv.Verdict {
		sv.decide(v, rule)
	}
}

// deliveredRule is the rule of a verdict judgeDelivered gave.
func deliveredRule(v Verdict) string {
	if v <= Match {
		return ""
	}
	return ruleDelivered
}

// outputRule is the rule of a verdict a command-line client's output
// judge (contract.output) gave: a crash is an exception, any other
// finding the output rule.
func outputRule(v Verdict) string {
	switch {
	case v <= Match:
		return ""
	case v == Crash:
		return ruleException
	}
	return ruleOutput
}

// settleRule gives a step whose verdict was decided without naming its
// rule the one rule that gives that verdict there (ruleOf), and clears
// the rule of a match or a skip.
func settleRule(sv *StepView) {
	switch {
	case sv.Verdict <= Match:
		sv.Rule = ""
	case sv.Rule == "":
		sv.Rule = ruleOf(sv.Verdict)
	}
}

// Rule is the ID of the rule that decided the result's verdict: its first
// step with that verdict's, or, when no step has it (an error before any
// step, a case cut short), the one rule that gives it there (ruleOf); ""
// for a match or a skip.
func (r *Result) Rule() string {
	if r.Verdict <= Match {
		return ""
	}
	for _, sv := range r.Steps {
		if sv.Verdict == r.Verdict && sv.Rule != "" {
			return sv.Rule
		}
	}
	return ruleOf(r.Verdict)
}
