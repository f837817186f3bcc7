package engram

import (
	"context"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// ParseCommentID is parseCommentID, for the tests that read memory.md.
var ParseCommentID = parseCommentID

// EncodeVector is encodeVector, for the external tests' baselines, which
// write vec0 rows in engram's format.
var EncodeVector = encodeVector

// HoldRead runs a read of m's store that starts, says so on started, and
// lasts until release is closed: a read as long as a test wants.
func HoldRead(m *Memory, started chan<- struct{}, release <-chan struct{}) error {
	return m.db.Read(context.Background(), "test.hold", func(q store.Tx) error {
		var n int
		if err := q.QueryRow(`SELECT count(*) FROM semantic_memory`, nil, &n); err != nil {
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

// SearchWithoutFTS makes every Memory opened from now on search without
// SQLite's full-text indexes (see Memory.fullText), as a store without
// FTS5 will; TestMain turns it on when ENGRAM_TEST_NOFTS=1.
func SearchWithoutFTS(on bool) { fullTextDefault = !on }

// CheckChangeLog makes every change log opened from now on check the
// writes' reports of their changes against SQLite's own record (see
// sqlite.CheckChangeLog); TestMain turns it on for the tests, not the
// benchmarks.
func CheckChangeLog(on bool) { sqlite.CheckChangeLog = on }
