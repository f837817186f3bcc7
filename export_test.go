package engram

import "context"

// ParseCommentID is parseCommentID, for the tests that read memory.md.
var ParseCommentID = parseCommentID

// EncodeVector is encodeVector, for the external tests' baselines, which
// write vec0 rows in engram's format.
var EncodeVector = encodeVector

// HoldRead runs a read of m's store that starts, says so on started, and
// lasts until release is closed: a read as long as a test wants.
func HoldRead(m *Memory, started chan<- struct{}, release <-chan struct{}) error {
	return m.db.read(context.Background(), "test.hold", func(q *dbtx) error {
		var n int
		if err := q.queryRow(`SELECT count(*) FROM semantic_memory`, nil, &n); err != nil {
			return err
		}
		close(started)
		<-release
		return nil
	})
}

// AwaitLinkIndex waits for the background build of m's stem index (see
// stemIndex), if one runs, to end.
func AwaitLinkIndex(m *Memory) { m.stems.ctl.wg.Wait() }

// AwaitTextIndex waits for the background build of m's text index (see
// textIndex), if one runs, to end.
func AwaitTextIndex(m *Memory) { m.text.ctl.wg.Wait() }

// CheckChangeLog makes every change log opened from now on check the
// writes' reports of their changes against SQLite's own record (see
// checkChangeLog); TestMain turns it on for the tests, not the benchmarks.
func CheckChangeLog(on bool) { checkChangeLog = on }
