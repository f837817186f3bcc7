package engram_test

import (
	"context"
	"fmt"
	"os"

	"github.com/engram-go/engram"
)

// ExampleWithPostgres keeps the memory of many agents in one PostgreSQL
// database that several servers share. It needs a PostgreSQL server (the
// DSN is an example's), so it is compiled, not run.
func ExampleWithPostgres() {
	dsn := os.Getenv("ENGRAM_POSTGRES") // e.g. "host=localhost user=engram password=… dbname=engram"
	st, err := engram.Open(engram.Tier1, engram.WithPostgres(dsn))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ada, err := st.Agent("ada")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if _, err := ada.Semantic().Store(ctx, engram.SemanticEntry{Content: "Ada prefers tea over coffee"}); err != nil {
		fmt.Println(err)
		return
	}
	// Any server on the same database finds it, with the same score as
	// on SQLite.
	res, err := ada.Search(ctx, engram.SearchOptions{Query: "tea"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res))
}
