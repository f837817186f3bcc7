//go:build race

package engram

// raceDetector says the tests run with the race detector, which changes
// what allocates (and sync.Pool drops a share of what it is given).
const raceDetector = true
