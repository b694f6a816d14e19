//go:build race

package clients

// raceEnabled is set under the race detector: the tests that run the whole
// client corpus through cluster clients then skip (the detector's memory,
// 12.7 GB RSS for TestClusterClients, got the test binary OOM-killed on a
// 24 GiB machine); scripts/test runs them without it.
const raceEnabled = true
