package clients

import (
	"slices"
	"strings"
	"sync"
)

// shared holds the drivers of every installed library, their adapter
// processes started once per test binary, on the first test that wants
// one (allDrivers), and ended by TestMain. Each test used to start its
// own set of some fifty processes (Available) and end it: the package's
// tests spent most of their CPU starting Node and Python runtimes. A
// session takes a process of its configuration from the adapter's pool,
// as in a respcheck run over many case files, so tests sharing them see
// what one long run would.
var shared struct {
	once  sync.Once
	ds    []Driver
	notes []string
}

// allDrivers is Available, started once: the checkout's adapters when
// scripts/install-clients.sh installed their libraries there, else the
// cache's copy (as respcheck finds them; a worktree without its own
// node_modules still has every library). The callers must not close the
// drivers.
func allDrivers() ([]Driver, []string) {
	shared.once.Do(func() {
		shared.ds, shared.notes = Available(AdapterSource{})
	})
	// A copy: callers filter it in place (slices.DeleteFunc).
	return slices.Clone(shared.ds), shared.notes
}

// closeShared ends the shared adapter processes, if any started.
func closeShared() {
	shared.once.Do(func() {}) // none started: none will be
	CloseDrivers(shared.ds)
}

// goDrivers are the built-in Go libraries' generic-API configurations
// (go-redis, rueidis, valkey-go, redigo, radix): goLibraries' names
// without a "/" or a "-typed".
func goDrivers() []Driver {
	var ds []Driver
	for _, d := range goLibraries() {
		if !strings.Contains(d.Library(), "/") && !strings.HasSuffix(d.Library(), "-typed") {
			ds = append(ds, d)
		}
	}
	return ds
}
