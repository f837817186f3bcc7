// Command locomo measures engram's recall on the LoCoMo long-conversation
// benchmark: it loads each conversation into a fresh memory, one dialog
// turn per episode, asks every question of categories 1 to 4 and reports
// turn-level Recall@k: the share of a question's evidence turns found in
// the top k results, averaged over questions.
//
//	go run ./internal/eval/locomo -data ../shared/data/locomo/locomo10.json [-tier 2]
//
// Tier 1 searches by full text; Tier 2 embeds with the offline hashing
// embedder and searches in hybrid mode (-wordvec embeds with averaged word
// vectors instead, a stand-in semantic embedder for this evaluation only). -convs asks only some of the
// conversations (to tune on one half and report on the other). -postgres
// DSN holds the memories on that PostgreSQL database, one agent per
// conversation ("locomo-" and its sample ID, erased after its questions),
// instead of in SQLite's memory: the figures are the same. It prints a
// line per question category, then the summary:
//
//	locomo tier1 questions=1536 R@1=… R@5=… R@10=… R@25=… sessionR@10=… sessions@10=…
//
// sessionR@10 is session-level recall: the share of a question's evidence
// sessions among the sessions of its top ten turns; sessions@10 is how
// many sessions the top ten span. On standard error it prints how long
// the searches took (p50, p90 and the total, over every question asked).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/locomodata"
)

func main() {
	data := flag.String("data", "../shared/data/locomo/locomo10.json", "path to locomo10.json")
	tier := flag.Int("tier", 1, "1 (full text) or 2 (hybrid, hashing embedder)")
	mode := flag.String("mode", "", "search mode: text, vector or hybrid (default: the tier's)")
	vw := flag.Float64("vector-weight", engram.DefaultConfig().Search.HybridVectorWeight, "hybrid: the vector ranking's weight")
	rrfK := flag.Float64("rrf-k", engram.DefaultConfig().Search.RRFConstant, "hybrid: the RRF constant")
	cw := flag.Float64("context-weight", engram.DefaultConfig().Search.ContextWeight, "the share of a match's relevance its session neighbours get")
	dw := flag.Float64("dialogue-weight", engram.DefaultConfig().Search.DialogueWeight, "the share of the matching turn beside it a match adds to its own")
	sw := flag.Float64("session-weight", engram.DefaultConfig().Search.SessionWeight, "the weight of an episode's session beside its relevance, as a share of the text's")
	ss := flag.Float64("session-spread", engram.DefaultConfig().Search.SessionSpread, "the share of its score a result loses for each result of its session above it")
	qp := flag.Float64("question-penalty", engram.DefaultConfig().Search.QuestionPenalty, "the share of its score an episode that asks a question loses")
	aw := flag.Float64("answer-weight", engram.DefaultConfig().Search.AnswerWeight, "the share of a matching question's text relevance the turn after it gets")
	lw := flag.Float64("lexical-weight", engram.DefaultConfig().Search.LexicalVectorWeight, "hybrid with the (lexical) hashing embedder: the cosine's share")
	k1 := flag.Float64("k1", engram.DefaultConfig().Search.BM25K1, "BM25's k1 (term frequency saturation)")
	b := flag.Float64("b", engram.DefaultConfig().Search.BM25B, "BM25's b (length normalization)")
	budget := flag.Int("budget", engram.DefaultConfig().Search.PostingBudget, "how many of the agent's documents a query's terms may match before common terms are left out")
	cands := flag.Int("candidates", engram.DefaultConfig().Search.Candidates, "full-text matches ranked per kind")
	wordVec := flag.String("wordvec", "", "tier 2: embed with this word-vector file (\"word v1 … vn\" lines, most frequent first) instead of the hashing embedder")
	convs := flag.String("convs", "", "the conversations to ask, numbered from 1: 1-5, 6-10, 1,3,7 (default all)")
	pg := flag.String("postgres", "", "hold the memories on this PostgreSQL database (a DSN), one agent per conversation, instead of in SQLite's memory")
	flag.Parse()
	cfg := engram.DefaultConfig()
	cfg.Search.HybridVectorWeight, cfg.Search.RRFConstant, cfg.Search.ContextWeight = *vw, *rrfK, *cw
	cfg.Search.DialogueWeight = *dw
	cfg.Search.SessionWeight, cfg.Search.SessionSpread, cfg.Search.QuestionPenalty, cfg.Search.AnswerWeight = *sw, *ss, *qp, *aw
	cfg.Search.LexicalVectorWeight, cfg.Search.BM25K1, cfg.Search.BM25B = *lw, *k1, *b
	cfg.Search.PostingBudget, cfg.Search.Candidates = *budget, *cands
	searchMode, wordVecPath, postgresDSN = engram.SearchMode(*mode), *wordVec, *pg
	var lat []time.Duration
	latencies = &lat
	if err := engram.Tier(*tier).Validate(); err != nil {
		log.Fatal(err)
	}
	d, err := locomodata.Load(*data)
	if err != nil {
		log.Fatal(err)
	}
	sel, err := locomodata.ParseConvs(*convs, len(d))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := run(context.Background(), d, sel, cfg, engram.Tier(*tier))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep)
	if len(lat) > 0 {
		var total time.Duration
		for _, l := range lat {
			total += l
		}
		slices.Sort(lat)
		fmt.Fprintf(os.Stderr, "search latency: p50=%v p90=%v total=%v over %d searches\n",
			lat[len(lat)/2], lat[len(lat)*9/10], total.Round(time.Millisecond), len(lat))
	}
}
