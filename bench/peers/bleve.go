package main

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// bleveDoc is what each bleve document holds: one text field, the
// memory's content.
type bleveDoc struct {
	Text string `json:"text"`
}

// bleveMapping is the mapping a bleve user would write for this: one
// stored text field analysed by the English analyser (Unicode words,
// possessives, lower case, English stopwords, Porter stems) and scored by
// scoring: index.BM25Scoring, as engram's FTS5 index is, or
// index.TFIDFScoring, bleve's default. Term vectors, the _all field and
// doc values are off: nothing here uses them, and the index is smaller
// without.
//
// bleve's BM25 (v2.5 on) takes a field's average length to be the number
// of distinct terms in the field's dictionary over the number of
// documents, rounded up, not the mean number of tokens per document; on
// these data sets that is far below the real mean, which weighs document
// length more than Lucene's BM25 would. That is bleve as shipped, so it is
// measured as is, beside its TF-IDF default.
func bleveMapping(scoring string) mapping.IndexMapping {
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = en.AnalyzerName
	fm.Store = true
	fm.IncludeTermVectors = false
	fm.IncludeInAll = false
	fm.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("text", fm)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = scoring
	return im
}

// buildBleve writes docs (by ID) into a new scorch index at path, scored
// by scoring (see bleveMapping), in batches of 1,000, closes it (which
// persists it), opens it again and merges it into one segment: the state
// of an index that has been written and then left to bleve's merger, as
// engram's own fixtures call Memory.Optimize.
func buildBleve(path, scoring string, ids, docs []string) (bleve.Index, error) {
	idx, err := bleve.New(path, bleveMapping(scoring))
	if err != nil {
		return nil, err
	}
	for lo := 0; lo < len(docs); lo += 1000 {
		b := idx.NewBatch()
		for i := lo; i < min(len(docs), lo+1000); i++ {
			if err := b.Index(ids[i], bleveDoc{Text: docs[i]}); err != nil {
				idx.Close()
				return nil, err
			}
		}
		if err := idx.Batch(b); err != nil {
			idx.Close()
			return nil, err
		}
	}
	if err := idx.Close(); err != nil {
		return nil, err
	}
	if idx, err = bleve.Open(path); err != nil {
		return nil, err
	}
	adv, err := idx.Advanced()
	if err != nil {
		idx.Close()
		return nil, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		idx.Close()
		return nil, fmt.Errorf("bleve index at %s is %T, not scorch", path, adv)
	}
	if err := s.ForceMerge(context.Background(), nil); err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}

// bleveSearch runs question as a match query (the question's analysed
// terms, ORed, as engram's compiled query is) and returns the IDs of the
// best limit documents, loading each one's stored text as a caller that
// shows the memory would. With byID, equal scores are ordered by ID;
// without, by bleve's internal document order, which follows Go's map
// order within a batch and so changes from one build to the next.
func bleveSearch(idx bleve.Index, question string, limit int, byID bool) ([]string, error) {
	q := bleve.NewMatchQuery(question)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, limit, 0, false)
	req.Fields = []string{"text"}
	if byID {
		req.SortBy([]string{"-_score", "_id"})
	}
	res, err := idx.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		if _, ok := h.Fields["text"].(string); !ok {
			return nil, fmt.Errorf("hit %s has no stored text", h.ID)
		}
		ids[i] = h.ID
	}
	return ids, nil
}
