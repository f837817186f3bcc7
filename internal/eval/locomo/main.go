// Command locomo measures engram's recall on the LoCoMo long-conversation
// benchmark: it loads each conversation into a fresh Tier 1 memory, one
// dialog turn per episode, asks every question of categories 1 to 4 and
// reports turn-level Recall@k: the share of a question's evidence turns
// found in the top k results, averaged over questions.
//
//	go run ./internal/eval/locomo -data ../shared/data/locomo/locomo10.json
//
// The last line it prints is the summary:
//
//	locomo tier1 questions=1536 R@1=… R@5=… R@10=… R@25=…
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/engram-go/engram"
)

func main() {
	data := flag.String("data", "../shared/data/locomo/locomo10.json", "path to locomo10.json")
	flag.Parse()
	d, err := load(*data)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := run(context.Background(), d, engram.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep)
}
