//go:build !race

package clients

// raceEnabled: see race_test.go.
const raceEnabled = false
