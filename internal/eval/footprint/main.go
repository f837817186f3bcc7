// Command footprint says where the bytes of a Tier 1 file go, per memory:
// it stores the search benchmarks' synthetic corpus (internal/benchdata)
// with history on, merges the full-text indexes as compaction does, and
// prints each table and index of the file (SQLite's dbstat) in bytes per
// memory, as a markdown table.
//
//	go run ./internal/eval/footprint -n 100000 [-tier 2] [-dir /tmp/fp] [-keep]
//
// At -tier 2 each memory also gets a vector of 384 dimensions (engram's
// hashing embedder: the sizes are those of any embedder's vectors).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	_ "modernc.org/sqlite"
)

func main() {
	n := flag.Int("n", 100_000, "memories stored")
	dir := flag.String("dir", "", "where the file is built (default a temporary directory, removed at the end)")
	keep := flag.Bool("keep", false, "keep the built file")
	tier := flag.Int("tier", 1, "the tier of the file: 1, or 2 with vectors")
	flag.Parse()
	log.SetFlags(log.Ltime)
	if *n < 1 || *tier < 1 || *tier > 2 {
		log.Fatal("-n must be at least 1, -tier 1 or 2")
	}
	d := *dir
	if d == "" {
		var err error
		if d, err = os.MkdirTemp("", "engram-footprint"); err != nil {
			log.Fatal(err)
		}
	}
	if !*keep {
		defer os.RemoveAll(d)
	}
	if err := run(context.Background(), d, *n, *tier); err != nil {
		log.Fatal(err)
	}
}

// dims is the vectors' dimension at Tier 2.
const dims = 384

func run(ctx context.Context, dir string, n, tier int) error {
	docs := benchdata.NewCorpus(n).Docs
	raw := 0
	for _, d := range docs {
		raw += len(d)
	}
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false // the corpus has no near-duplicates: linking would add nothing
	opts := []engram.Option{engram.WithDir(dir), engram.WithConfig(cfg)}
	t := engram.Tier1
	if tier == 2 {
		e, err := engram.NewHashingEmbedder(dims)
		if err != nil {
			return err
		}
		t, opts = engram.Tier2, append(opts, engram.WithEmbedder(e))
	}
	m, err := engram.New(t, opts...)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for lo := 0; lo < n; lo += 1000 {
		batch := make([]engram.SemanticEntry, 0, 1000)
		for _, d := range docs[lo:min(n, lo+1000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			m.Close()
			return err
		}
	}
	if err := m.Optimize(ctx); err != nil {
		m.Close()
		return err
	}
	if err := m.Close(); err != nil {
		return err
	}
	path := filepath.Join(dir, "default", "memory.db")
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, sum(pgsize), sum(payload), sum(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC`)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Printf("%d memories, raw text %.0f B/memory, file %.0f B/memory (%.1f× the text)\n", n,
		float64(raw)/float64(n), float64(st.Size())/float64(n), float64(st.Size())/float64(raw))
	if tier == 2 {
		fmt.Printf("raw vectors %d B/memory: the file is %.3f× them\n", 4*dims, float64(st.Size())/float64(n*4*dims))
	}
	fmt.Println()
	fmt.Println("| table or index | B/memory | payload B/memory | unused B/memory |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	var total int64
	for rows.Next() {
		var name string
		var size, payload, unused int64
		if err := rows.Scan(&name, &size, &payload, &unused); err != nil {
			return err
		}
		total += size
		if size*1000 < st.Size() {
			continue
		}
		fmt.Printf("| %s | %.0f | %.0f | %.0f |\n", name, float64(size)/float64(n), float64(payload)/float64(n), float64(unused)/float64(n))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var free, pageSize int64
	if err := db.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		return err
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		return err
	}
	fmt.Printf("| all pages in use | %.0f | | |\n", float64(total)/float64(n))
	fmt.Printf("| free pages | %.0f | | |\n", float64(free*pageSize)/float64(n))
	return nil
}
