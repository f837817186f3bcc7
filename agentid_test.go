package engram_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// TestAgentIDsPeopleUse opens agents named by emails, UUIDs, slugs and
// mixed case in one base directory: each gets a directory of its own whose
// name is the ID when it is plain and an encoding otherwise, no two share
// one (even "Ada" and "ada"), and ListAgents gives the IDs back.
func TestAgentIDsPeopleUse(t *testing.T) {
	sqliteOnly(t, "the directory of files: the names of agents' directories")
	ctx := context.Background()
	base := t.TempDir()
	ids := []string{
		"support-bot",
		"ada@example.com",
		"ada+work@example.co.uk",
		"7f9c2ba4-e88f-11ee-8c90-0242ac120002",
		"7F9C2BA4-E88F-11EE-8C90-0242AC120002",
		"Ada",
		"ada",
		"a." + strings.Repeat("Z", 126), // 128, all but two encoded
	}
	dirs := map[string]string{}
	for _, id := range ids {
		m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent(id))
		require.NoError(t, err, id)
		_, err = m.Semantic().Store(ctx, engram.SemanticEntry{Content: "I am " + id})
		require.NoError(t, err)
		rel, err := filepath.Rel(base, filepath.Dir(m.Path()))
		require.NoError(t, err)
		assert.NotContains(t, rel, string(filepath.Separator), "one directory below the base")
		assert.LessOrEqual(t, len(rel), 255, "a file name any file system takes")
		if other, ok := dirs[strings.ToLower(rel)]; ok {
			t.Errorf("%q and %q share directory %q (ignoring case)", id, other, rel)
		}
		dirs[strings.ToLower(rel)] = id
		if id == strings.ToLower(id) {
			assert.Equal(t, id, rel, "a lowercase ID is its own directory name")
		} else {
			assert.True(t, strings.HasPrefix(rel, "~"), "%q is encoded: %q", id, rel)
		}
		require.NoError(t, m.Close())
	}
	got, err := engram.ListAgents(ctx, engram.WithDir(base))
	require.NoError(t, err)
	assert.ElementsMatch(t, ids, got)

	// Each finds its own memory again, and only its own.
	for _, id := range ids {
		m, err := engram.New(engram.Tier1, engram.WithDir(base), engram.WithAgent(id))
		require.NoError(t, err)
		list, err := m.Semantic().List(ctx, engram.ListOptions{})
		require.NoError(t, err)
		require.Len(t, list, 1, id)
		assert.Equal(t, "I am "+id, list[0].Content)
		require.NoError(t, m.Close())
	}

	// Directories engram did not make are no agents: a name that is not
	// an encoding, or an encoding of a plain ID (which is its own name).
	for _, name := range []string{"~zzzz!", "~" + "c5h66", "Upper", ".hidden"} {
		require.NoError(t, os.MkdirAll(filepath.Join(base, name), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(base, name, "memory.db"), nil, 0o600))
	}
	again, err := engram.ListAgents(ctx, engram.WithDir(base))
	require.NoError(t, err)
	assert.ElementsMatch(t, ids, again)
}
