package memview_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// TestItemRecord: an item read from the JSON both servers take becomes
// the memory of its type, its metadata read by kind, a semantic entry's
// missing source the transport's, a fact's ID and metadata the item's.
func TestItemRecord(t *testing.T) {
	read := func(t *testing.T, body string) memview.Item {
		t.Helper()
		var it memview.Item
		require.NoError(t, json.Unmarshal([]byte(body), &it))
		return it
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	rec, err := read(t, `{"type": "semantic", "id": "s1", "created_at": "2026-05-01T12:00:00Z", "content": "Ada prefers short answers",
		"importance": 0.7, "tags": ["style"], "user_id": "ada", "metadata": {"lang": "en", "n": 2}}`).Record("api")
	require.NoError(t, err)
	assert.Equal(t, engram.SemanticEntry{ID: "s1", CreatedAt: at, Content: "Ada prefers short answers", Importance: 0.7,
		Tags: []string{"style"}, Source: "api", UserID: "ada", Metadata: map[string]any{"lang": "en", "n": 2.0}}, *rec.Semantic)

	rec, err = read(t, `{"type": "semantic", "content": "x", "source": "import"}`).Record("mcp")
	require.NoError(t, err)
	assert.Equal(t, "import", rec.Semantic.Source, "a source given is kept")

	rec, err = read(t, `{"type": "episodic", "content": "deployed", "event_type": "task-completed", "session_id": "s",
		"cost": 0.5, "duration_ms": 1500, "metadata": {"k": "v"}}`).Record("api")
	require.NoError(t, err)
	assert.Equal(t, engram.Episode{Content: "deployed", Type: engram.EventTaskCompleted, SessionID: "s", Cost: 0.5,
		Duration: 1500 * time.Millisecond, Metadata: map[string]string{"k": "v"}}, *rec.Episode)

	rec, err = read(t, `{"type": "procedural", "name": "deploy", "pattern": "run the tests", "success_rate": 0.9,
		"disabled": true, "metadata": {"team": ["ops"]}}`).Record("api")
	require.NoError(t, err)
	assert.Equal(t, engram.Procedure{Name: "deploy", Pattern: "run the tests", SuccessRate: 0.9, Disabled: true,
		Metadata: map[string]any{"team": []any{"ops"}}}, *rec.Procedure)

	rec, err = read(t, `{"type": "fact", "id": "f1", "subject": "Ada", "predicate": "lives in", "object": "Paris",
		"valid_from": "2026-05-01T12:00:00Z", "sources": ["chat"], "memory_id": "s1", "metadata": {"k": "v"}}`).Record("api")
	require.NoError(t, err)
	assert.Equal(t, engram.Fact{ID: "f1", Subject: "Ada", Predicate: "lives in", Object: "Paris", ValidFrom: at,
		Sources: []string{"chat"}, MemoryID: "s1", Metadata: map[string]string{"k": "v"}}, *rec.Fact)

	rec, err = read(t, `{"type": "snapshot"}`).Record("api")
	require.NoError(t, err)
	assert.Equal(t, engram.Record{Type: engram.TypeSnapshot}, rec, "a type that is not added gives no memory")
}

// TestItemRecordMetadata: metadata that is not its kind's shape is
// refused as field "metadata", matching engram.ErrInvalid.
func TestItemRecordMetadata(t *testing.T) {
	for _, c := range []struct {
		typ  engram.MemoryType
		meta string
		want string
	}{
		{engram.TypeSemantic, `[1]`, "want an object"},
		{engram.TypeProcedural, `"x"`, "want an object"},
		{engram.TypeEpisodic, `{"n": 1}`, "want an object of strings"},
		{engram.TypeFact, `{"n": {"a": "b"}}`, "want an object of strings"},
	} {
		rec, err := memview.Item{Type: c.typ, Metadata: json.RawMessage(c.meta)}.Record("api")
		var ie *engram.InvalidError
		require.ErrorAs(t, err, &ie, "%s %s", c.typ, c.meta)
		assert.ErrorIs(t, err, engram.ErrInvalid)
		assert.Equal(t, engram.InvalidError{Field: "metadata", Reason: c.want}, *ie)
		assert.Equal(t, engram.Record{}, rec)
	}
}

// TestFactItemSources: a fact's sources are a copy, so a transport may
// add its own without changing the item's.
func TestFactItemSources(t *testing.T) {
	in := memview.FactItem{Subject: "Ada", Predicate: "knows", Object: "Bob", Sources: make([]string, 1, 4)}
	in.Sources[0] = "chat"
	f := in.Fact()
	f.Sources = append(f.Sources, "mcp")
	f.Sources[0] = "changed"
	assert.Equal(t, []string{"chat"}, in.Sources)
}
