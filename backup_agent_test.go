package engram_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// seedAgent stores, for m's agent, a memory of every kind whose texts
// hold word, a link, an update (history) and an extraction rule.
func seedAgent(t *testing.T, m *engram.Memory, word string) {
	t.Helper()
	ctx := context.Background()
	s1, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: word + " runs the deploy pipeline on Fridays", Importance: 0.9, Tags: []string{"ops"}})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := m.Semantic().Store(ctx, engram.SemanticEntry{Content: word + " keeps the release notes", Importance: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	content := word + " runs the deploy pipeline on Mondays now"
	if _, err := m.Semantic().Update(ctx, s1, engram.SemanticPatch{Content: &content}); err != nil {
		t.Fatal(err)
	}
	if err := m.Links().Add(ctx, engram.Link{SourceID: s1, TargetID: s2, Type: engram.LinkSupports}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Episodic().Log(ctx, engram.Episode{Content: word + " deployed the pipeline", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Procedural().Store(ctx, engram.Procedure{Name: "deploy", Description: word + " deploy steps"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Facts().Assert(ctx, engram.Fact{Subject: "User", Predicate: "works at", Object: word + "corp"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Rules().Add(ctx, engram.ExtractionRule{Name: "employer", Type: "semantic", Pattern: word + ` (\w+)`}); err != nil {
		t.Fatal(err)
	}
}

// exportBody returns m's export with history and vectors, without its
// header (whose time differs from one export to the next).
func exportBody(t *testing.T, m *engram.Memory) string {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Export(context.Background(), &buf, engram.ExportOptions{Vectors: true, History: true}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(buf.String(), "\n")
	return body
}

// checkAgentCopy checks the backup at path of m's agent, whose texts hold
// own, against m: it holds no byte of other's texts, no other agent's
// rows, and exports as m does (every memory, link, rule, history entry
// and vector), and it is the one file in its directory.
func checkAgentCopy(t *testing.T, m *engram.Memory, path, own, other string, opts ...engram.Option) {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte(other)); n != 0 {
		t.Errorf("the copy holds another agent's word %q %d times", other, n)
	}
	if !bytes.Contains(raw, []byte(own)) {
		t.Errorf("the copy does not hold the agent's word %q", own)
	}
	assertOnlyFile(t, filepath.Dir(path), filepath.Base(path))
	agents, err := engram.ListAgents(ctx, engram.WithPath(path))
	if err != nil || !slices.Equal(agents, []string{m.AgentID()}) {
		t.Errorf("the copy's agents: %q, %v; want only %q", agents, err, m.AgentID())
	}
	c, err := engram.New(m.Tier(), append([]engram.Option{engram.WithPath(path), engram.WithAgent(m.AgentID())}, opts...)...)
	if err != nil {
		t.Fatalf("opening the copy: %v", err)
	}
	defer c.Close()
	if err := c.CheckIntegrity(ctx); err != nil {
		t.Errorf("the copy: %v", err)
	}
	if got, want := exportBody(t, c), exportBody(t, m); got != want {
		t.Errorf("the copy exports\n%s\nthe agent exports\n%s", got, want)
	}
}

// TestBackupAgent backs up one agent of a shared file (Tier 2, with
// vectors), of a Store in memory and of a base directory: each copy holds
// that agent's memory whole and nothing of the other's, where Backup of
// the shared file holds both.
func TestBackupAgent(t *testing.T) {
	sqliteOnly(t, "BackupAgent in each of SQLite's layouts: a shared file, a store in memory, a base directory")
	ctx := context.Background()
	emb, err := engram.NewHashingEmbedder(32)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("shared file", func(t *testing.T) {
		path := newDB(t)
		a := openOn(t, path, "a", engram.Tier2, engram.WithEmbedder(emb))
		b := openOn(t, path, "b", engram.Tier2, engram.WithEmbedder(emb))
		seedAgent(t, a, "alphamark")
		seedAgent(t, b, "bravomark")
		whole := filepath.Join(t.TempDir(), "whole.db")
		if err := b.Backup(ctx, whole); err != nil {
			t.Fatal(err)
		}
		if raw, err := os.ReadFile(whole); err != nil || !bytes.Contains(raw, []byte("alphamark")) {
			t.Fatalf("Backup of the shared file lacks agent a (%v): it copies the whole file", err)
		}
		dst := filepath.Join(t.TempDir(), "b.db")
		if err := b.BackupAgent(ctx, dst); err != nil {
			t.Fatal(err)
		}
		checkAgentCopy(t, b, dst, "bravomark", "alphamark", engram.WithEmbedder(emb))
	})
	t.Run("store in memory", func(t *testing.T) {
		st, err := engram.Open(engram.Tier1, engram.InMemory())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		a, err := st.Agent("a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Agent("b")
		if err != nil {
			t.Fatal(err)
		}
		seedAgent(t, a, "alphamark")
		seedAgent(t, b, "bravomark")
		dst := filepath.Join(t.TempDir(), "b.db")
		if err := b.BackupAgent(ctx, dst); err != nil {
			t.Fatal(err)
		}
		checkAgentCopy(t, b, dst, "bravomark", "alphamark")
	})
	t.Run("base directory", func(t *testing.T) {
		base := t.TempDir()
		st, err := engram.Open(engram.Tier1, engram.WithDir(base))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		a, err := st.Agent("a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Agent("b")
		if err != nil {
			t.Fatal(err)
		}
		seedAgent(t, a, "alphamark")
		seedAgent(t, b, "bravomark")
		dst := filepath.Join(t.TempDir(), "b.db")
		if err := b.BackupAgent(ctx, dst); err != nil {
			t.Fatal(err)
		}
		checkAgentCopy(t, b, dst, "bravomark", "alphamark")

		// Agent a's rows written into b's own file (a Memory opened on it
		// with WithPath): b's copy is built from b's rows alone.
		intruder := openOn(t, fileDB(t, filepath.Join(base, "b", "memory.db")), "a", engram.Tier1)
		if _, err := intruder.Semantic().Store(ctx, engram.SemanticEntry{Content: "alphamark slipped into b's file", Importance: 0.5}); err != nil {
			t.Fatal(err)
		}
		dst = filepath.Join(t.TempDir(), "b.db")
		if err := b.BackupAgent(ctx, dst); err != nil {
			t.Fatal(err)
		}
		checkAgentCopy(t, b, dst, "bravomark", "alphamark")
	})
}

// TestBackupAgentRefuses: BackupAgent refuses what Backup refuses, and an
// agent's export that does not import again is an error matching
// ErrCorrupt; none of them leaves a file.
func TestBackupAgentRefuses(t *testing.T) {
	needs(t, enginetest.CapBackup, enginetest.CapFile) // raw SQL writes a tag no API writes
	ctx := context.Background()
	path := newDB(t)
	m := openOn(t, path, "b", engram.Tier1)
	seedAgent(t, m, "bravomark")
	existing := filepath.Join(t.TempDir(), "taken.db")
	if err := os.WriteFile(existing, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dst  string
		want error
	}{
		{"", engram.ErrInvalid},
		{path.file(t), engram.ErrInvalid},
		{filepath.Join(t.TempDir(), "no", "such", "dir", "b.db"), engram.ErrInvalid},
		{existing, engram.ErrExists},
	} {
		if err := m.BackupAgent(ctx, c.dst); !errors.Is(err, c.want) {
			t.Errorf("BackupAgent(%q) = %v, want %v", c.dst, err, c.want)
		}
	}
	assertOnlyFile(t, filepath.Dir(existing), "taken.db")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	dir := t.TempDir()
	if err := m.BackupAgent(cancelled, filepath.Join(dir, "b.db")); !errors.Is(err, context.Canceled) {
		t.Errorf("BackupAgent with a cancelled context = %v, want context.Canceled", err)
	}

	// A tag that is not a string: the store path never writes one, and
	// an import refuses it.
	raw, err := sql.Open("sqlite", path.file(t))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `UPDATE semantic_memory SET tags = '[5]' WHERE agent_id = 'b'`); err != nil {
		t.Fatal(err)
	}
	err = m.BackupAgent(ctx, filepath.Join(dir, "b.db"))
	var dbe *engram.DatabaseError
	if !errors.Is(err, engram.ErrCorrupt) || !errors.As(err, &dbe) || dbe.Op != "backup" || errors.Is(err, engram.ErrInvalid) {
		t.Errorf("BackupAgent of a row that does not import = %v, want a *DatabaseError matching ErrCorrupt", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed BackupAgent left %v", ents)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE semantic_memory SET tags = '[]' WHERE agent_id = 'b'`); err != nil {
		t.Fatal(err)
	}

	m.Close()
	if err := m.BackupAgent(ctx, filepath.Join(dir, "b.db")); !errors.Is(err, engram.ErrClosed) {
		t.Errorf("BackupAgent after Close = %v, want ErrClosed", err)
	}
}
