// Command recall measures how well engram finds, in a personal assistant's
// mixed memory, the memory that answers a question. The data,
// testdata/recall/assistant.json, holds three users' facts, chat turns,
// procedures and session snapshots and the questions they ask; each user
// is an agent of one database file. For every question the command asks
// the user's memory and reports answer@k: the share of questions with an
// answering memory among the first k results, overall and by the kind of
// memory that answers.
//
//	go run ./internal/eval/recall [-data testdata/recall/assistant.json] [-retriever search|recall|context] [-v]
//
// -v prints each question with its answers and the first three results,
// their scores and the parts of each score. -session-weight,
// -session-spread, -question-penalty and -answer-weight set the search's
// (see engram.SearchConfig). The last line is the summary:
//
//	recall search questions=75 answer@1=… answer@3=… answer@10=…
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
)

func main() {
	data := flag.String("data", "testdata/recall/assistant.json", "path to the recall set")
	name := flag.String("retriever", "search", "how to answer: "+strings.Join(names(), ", "))
	verbose := flag.Bool("v", false, "print every question, its answers and the first three results")
	sc := &config.Search
	flag.Float64Var(&sc.SessionWeight, "session-weight", sc.SessionWeight, "the weight of an episode's session beside its relevance, as a share of the text's")
	flag.Float64Var(&sc.SessionSpread, "session-spread", sc.SessionSpread, "the share of its score a result loses for each result of its session above it")
	flag.Float64Var(&sc.QuestionPenalty, "question-penalty", sc.QuestionPenalty, "the share of its score an episode that asks a question loses")
	flag.Float64Var(&sc.AnswerWeight, "answer-weight", sc.AnswerWeight, "the share of a matching question's text relevance the turn after it gets")
	flag.Parse()
	ask, ok := retrievers[*name]
	if !ok {
		log.Fatalf("unknown retriever %q; known: %s", *name, strings.Join(names(), ", "))
	}
	d, err := load(*data)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "engram-recall-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var w io.Writer
	if *verbose {
		w = os.Stdout
	}
	rep, err := run(context.Background(), d, dir, *name, ask, w)
	if err != nil {
		os.RemoveAll(dir)
		log.Fatal(err)
	}
	fmt.Println(rep)
}

// names returns the retrievers' names, sorted.
func names() []string {
	var out []string
	for n := range retrievers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
