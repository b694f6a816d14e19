package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/respcheck/respcheck/runner/servers"
)

// choicesKey is the flag annotation that lists a flag's values for shell
// completion (see choices).
const choicesKey = "respcheck_choices"

// choices annotates flag name of fl with the values it takes, which the
// shell completes (completeFlags).
func choices(fl *pflag.FlagSet, name string, values ...string) {
	_ = fl.SetAnnotation(name, choicesKey, values) // the flag is fl's: no error
}

// clientNames are the library names --clients takes (each selects every
// version and configuration of its library).
var clientNames = []string{"go-redis", "go-redis-typed", "rueidis", "valkey-go", "redigo", "radix", "ioredis", "ioredis-typed",
	"node-redis", "node-redis-typed", "iovalkey", "valkey-glide", "redis-py", "hiredis", "redis-rb", "phpredis", "redis-cli", "valkey-cli"}

// completeFlags registers, on c and every command under it, the shell
// completion of flag values: the values a flag was annotated with
// (choices), the installed builds and miniredis for --server, and the
// library names for --clients (after a comma too: "go-redis,io<TAB>").
func completeFlags(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		var fn cobra.CompletionFunc
		switch vals, ok := f.Annotations[choicesKey]; {
		case ok:
			fn = fixed(vals)
		case f.Name == "server":
			fn = completeServers
		case f.Name == "clients":
			fn = completeList(append([]string{"all"}, clientNames...))
		default:
			return
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, fn) // once per command and flag
	})
	for _, sub := range c.Commands() {
		completeFlags(sub)
	}
}

// fixed completes one of vals.
func fixed(vals []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeList completes the last item of a comma-separated list of vals.
func completeList(vals []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		head, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head, last = toComplete[:i+1], toComplete[i+1:]
		}
		var out []cobra.Completion
		for _, v := range vals {
			if strings.HasPrefix(v, last) {
				out = append(out, head+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// completeServers completes the installed builds (scripts/install-servers.sh)
// and miniredis.
func completeServers(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := []cobra.Completion{"miniredis"}
	builds, _ := servers.Installed() // none installed: miniredis alone
	for _, b := range builds {
		out = append(out, b.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
