//go:build race

package main

// raceEnabled is set when the tests run with the race detector: the client
// matrix tests, whose cells depend on the libraries' timing (a 2 s step
// deadline), then skip; scripts/test runs them in a step without it.
const raceEnabled = true
