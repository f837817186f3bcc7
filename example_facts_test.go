package engram_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/engram-go/engram"
)

func ExampleFacts_Assert() {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(func() time.Time { return now }))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	facts := m.Facts()

	for _, f := range []engram.Fact{
		{Subject: "Ada", Predicate: "lives in", Object: "London", ValidFrom: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Subject: "ada", Predicate: "resides in", Object: "london"}, // the same fact, in other words
		{Subject: "Ada", Predicate: "likes", Object: "pizza"},
		{Subject: "Ada", Predicate: "likes", Object: "sushi"}, // likes holds many values
		{Subject: "Ada", Predicate: "lives in", Object: "Paris", ValidFrom: time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)},
	} {
		a, err := facts.Assert(ctx, f)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-9s %s (strength %g)\n", a.Action, a.Fact, a.Fact.Strength)
	}

	then, err := facts.AsOf(ctx, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), engram.FactQuery{Entity: "Ada", Predicate: "lives in"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("in June 2024:", then[0].Object)
	current, err := facts.Current(ctx, engram.FactQuery{Entity: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range current {
		fmt.Println("now:", f)
	}
	// Output:
	// insert    Ada lives in London (strength 1)
	// merge     Ada lives in London (strength 2)
	// insert    Ada likes pizza (strength 1)
	// insert    Ada likes sushi (strength 1)
	// supersede Ada lives in Paris (strength 1)
	// in June 2024: London
	// now: Ada likes pizza
	// now: Ada likes sushi
	// now: Ada lives in Paris
}
