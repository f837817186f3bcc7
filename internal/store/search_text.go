package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/engram-go/engram/internal/bm25"
)

// The statements of the full-text search (the root's search_text.go):
// FTS5's matches of a kind scored inside SQLite (see RegisterScoring),
// the windows that bound how many a plan scores, the counts of the
// documents holding a term, and the statistics BM25 scores over.

// TextBestSQL takes, per kind, (expr, agent, since, until, the tags as
// JSON or an empty string, lowest rowid to match, the search's scorer
// handle, whether to score from the texts, k, the search's now) and
// returns the k live matches (see Kind.Live) with the best BM25 scores,
// then by ID: RankCols, then the term vector and length, in the scope
// that replaces its ScopeMark (alias "t", arguments from ?11). Every
// match is scored inside SQLite and sorted by its pk, ID and score alone;
// the rest of the row is read for the k best only.
//
// CROSS JOIN keeps the FTS table as the outer loop: FTS5 finds the
// matches and the join looks up only those rows. (Left to itself, the
// planner may scan the agent's rows and probe the index once per row,
// hundreds of times slower.)
var TextBestSQL map[*Kind]string

// makeTextBestSQL makes TextBestSQL (see makeStatements).
func makeTextBestSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range TextKinds {
		out[k] = `SELECT ` + RankCols(k, "t") + `, t.terms, t.ntok FROM (
					SELECT ` + k.FTS + `.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, ` + k.IndexedOver("t") + `)
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM ` + k.FTS + ` CROSS JOIN ` + k.Table + ` t ON t.pk = ` + k.FTS + `.rowid
					WHERE ` + k.FTS + ` MATCH ?1 AND ` + k.FTS + `.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ` + k.TagFilter("t", "?5") + ` AND ` + k.LiveAt("t", "?10") + ` AND ` + ScopeMark + `
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN ` + k.Table + ` t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id`
	}
	return out
}

// TextWindowSQL finds, per kind, the rowid of the agent's (?3) match of
// expr (?1) that is newest but ?2, among those created in [?4, ?5)
// carrying one of the tags ?6 (a JSON list, or empty for any), in the scope
// that replaces its ScopeMark (alias "t", arguments from ?7).
var TextWindowSQL map[*Kind]string

// makeTextWindowSQL makes TextWindowSQL (see makeStatements).
func makeTextWindowSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range TextKinds {
		out[k] = `SELECT t.pk FROM ` + k.FTS + ` CROSS JOIN ` + k.Table + ` t ON t.pk = ` + k.FTS + `.rowid
				WHERE ` + k.FTS + ` MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ` + k.TagFilter("t", "?6") + `
					AND ` + ScopeMark + `
				ORDER BY ` + k.FTS + `.rowid DESC LIMIT 1 OFFSET ?2`
	}
	return out
}

// textIndexedSQL reads, per kind, the indexed texts of the rows whose pks
// are listed in ?1 (pk, then Kind.Indexed).
var textIndexedSQL map[*Kind]string

// makeTextIndexedSQL makes textIndexedSQL (see makeStatements).
func makeTextIndexedSQL() map[*Kind]string {
	out := map[*Kind]string{}
	for _, k := range TextKinds {
		out[k] = `SELECT t.pk, ` + k.IndexedOver("t") + `
				FROM json_each(?1) j CROSS JOIN ` + k.Table + ` t ON t.pk = CAST(j.value AS INTEGER)`
	}
	return out
}

// SearchStats is what a search reads of its agent before it scores: how
// many searchable memories it has and of how many tokens, the versions
// of its texts (-1 before it ever had one) and of their ranks, and the
// version of its accesses.
type SearchStats struct {
	Docs, Tokens                  int
	Version, Ranks, AccessVersion int64
}

// ReadSearchStats returns agent's SearchStats; accessKey is the meta key
// of its access version. It returns the driver's errors.
func ReadSearchStats(q Querier, agent, accessKey string) (SearchStats, error) {
	var st SearchStats
	err := q.QueryRow(`SELECT coalesce(s.docs, 0), coalesce(s.tokens, 0), coalesce(s.version, -1), coalesce(s.ranks, 0),
			coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?2), 0)
		FROM (SELECT 1) LEFT JOIN text_stats s ON s.agent_id = ?1`,
		[]any{agent, accessKey}, &st.Docs, &st.Tokens, &st.Version, &st.Ranks, &st.AccessVersion)
	return st, err
}

// TextMatches returns how many documents of k's full-text index match
// the FTS5 expression expr. It returns the driver's errors (a malformed
// expression among them).
func TextMatches(q Querier, k *Kind, expr string) (int, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM `+k.FTS+` WHERE `+k.FTS+` MATCH ?`, []any{expr}, &n)
	return n, err
}

// VocabDocs returns how many documents of k's full-text index hold the
// stem, as the index's own counts (its fts5vocab table) say: 0 for none.
// It returns the driver's errors.
func VocabDocs(q Querier, k *Kind, stem string) (int, error) {
	var n int
	err := q.QueryRow(`SELECT doc FROM `+k.Vocab+` WHERE term = ?`, []any{stem}, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// TextHeld reports whether agent has any row of kind k (held), and
// whether other agents have some in the same table (shared): two index
// lookups. It returns the driver's errors.
func TextHeld(q Querier, k *Kind, agent string) (held, shared bool, err error) {
	err = q.QueryRow(`SELECT EXISTS (SELECT 1 FROM `+k.Table+` WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM `+k.Table+` WHERE agent_id < ?1 OR agent_id > ?1)`,
		[]any{agent}, &held, &shared)
	return held, shared, err
}

// TextWindow returns the rowid of agent's match of expr in k's full-text
// index that is newest but skip, among the rows f keeps (see
// TextWindowSQL), or 0 when there are not that many. It returns the
// driver's errors.
func TextWindow(q Querier, k *Kind, agent, expr string, skip int, f SearchFilter) (int64, error) {
	var from int64
	var err error
	if f.None() {
		err = q.QueryRow(`SELECT rowid FROM `+k.FTS+` WHERE `+k.FTS+` MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2`,
			[]any{expr, skip}, &from)
	} else {
		window, scoped := f.Scope.scoped(TextWindowSQL[k], k, "t", 7)
		err = q.QueryRow(window, append([]any{expr, skip, agent, f.Since, f.Until, f.Tags}, scoped...), &from)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return from, err
}

// TextMatch is one full-text query of TextBest: agent's matches of Expr
// from rowid From on, among the rows Filter keeps and live at Now (Unix
// ms), scored by the scorer of handle Scorer (from their texts when
// FromText), the Limit best.
type TextMatch struct {
	Agent    string
	Expr     string
	From     int64
	Filter   SearchFilter
	Scorer   int64
	FromText bool
	Limit    int
	Now      int64
}

// TextBest runs m on k's full-text index (see TextBestSQL) and calls each
// with every row found, best first: RankCols, then its term vector (nil
// without one) and length. row and terms are valid only during the call.
// It returns the driver's errors, a tag list's decoding error, or each's.
func TextBest(q Querier, k *Kind, m TextMatch, each func(row *RankedRow, terms []byte, ntok int) error) error {
	best, scoped := m.Filter.Scope.scoped(TextBestSQL[k], k, "t", 11)
	rows, err := q.Query(best, append([]any{m.Expr, m.Agent, m.Filter.Since, m.Filter.Until, m.Filter.Tags, m.From,
		m.Scorer, m.FromText, m.Limit, m.Now}, scoped...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var row RankedRow
	var terms []byte
	var ntok int
	for rows.Next() {
		if err := ScanRanked(rows, &row, &terms, &ntok); err != nil {
			return err
		}
		if err := each(&row, terms, ntok); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// EachIndexedText calls each with the pk and the indexed texts (see
// Kind.Indexed) of every row of kind k whose pk is in pks. texts is valid
// only during the call. It returns the driver's errors or each's.
func EachIndexedText(q Querier, k *Kind, pks []int64, each func(pk int64, texts []string) error) error {
	list, err := json.Marshal(pks)
	if err != nil {
		return err
	}
	rows, err := q.Query(textIndexedSQL[k], string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	texts := make([]string, len(k.Indexed))
	var pk int64
	dest := TextsDest(texts, &pk)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := each(pk, texts); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// FillMissingTerms writes the term vector of every row of kind k, any
// agent's, that has none (a row written before term vectors were kept,
// or by a program that does not make them), from its indexed texts, a
// thousand at a time. It returns the driver's errors.
func FillMissingTerms(q Querier, k *Kind) error { return fillTerms(q, k, `t.terms IS NULL`) }

// FillRowTerms writes the term vector of the agent's row of kind k with
// the given ID from its indexed texts; with onlyMissing, only when it has
// none. It returns the driver's errors.
func FillRowTerms(q Querier, k *Kind, agent, id string, onlyMissing bool) error {
	if onlyMissing {
		return fillTerms(q, k, `t.agent_id = ? AND t.id = ? AND t.terms IS NULL`, agent, id)
	}
	return fillTerms(q, k, `t.agent_id = ? AND t.id = ?`, agent, id)
}

// fillTerms writes the term vectors of kind k's rows that the condition
// where (over the row named t, with args) selects, from their indexed
// texts, a thousand at a time.
func fillTerms(q Querier, k *Kind, where string, args ...any) error {
	query := `SELECT t.pk, ` + k.IndexedOver("t") + ` FROM ` + k.Table + ` t WHERE ` + where + ` AND t.pk > ? ORDER BY t.pk LIMIT 1000`
	texts := make([]string, len(k.Indexed))
	for after := int64(0); ; {
		rows, err := q.Query(query, append(args, after)...)
		if err != nil {
			return err
		}
		type row struct {
			pk    int64
			terms []byte
			ntok  int
		}
		var pk int64
		dest := TextsDest(texts, &pk)
		got, err := ScanAll(rows, func(r Scanner) (row, error) {
			if err := r.Scan(dest...); err != nil {
				return row{}, err
			}
			x := row{pk: pk}
			x.terms, x.ntok = bm25.Vector(texts...)
			return x, nil
		})
		if err != nil || len(got) == 0 {
			return err
		}
		for _, x := range got {
			if _, err := q.Exec(`UPDATE `+k.Table+` SET terms = ?, ntok = ? WHERE pk = ?`, x.terms, x.ntok, x.pk); err != nil {
				return err
			}
		}
		after = got[len(got)-1].pk
	}
}

// TextStatsMismatch is an agent whose text_stats row disagrees with its
// searchable rows: the rows and tokens text_stats counts, and those the
// tables hold.
type TextStatsMismatch struct {
	Agent                  string
	StatsDocs, StatsTokens int
	TableDocs, TableTokens int
}

// TextStatsMismatches returns the agents whose text statistics disagree
// with their rows of the text kinds. It returns the driver's errors.
func TextStatsMismatches(q Querier) ([]TextStatsMismatch, error) {
	var parts []string
	for _, k := range TextKinds {
		parts = append(parts, `SELECT agent_id, ntok FROM `+k.Table)
	}
	rows, err := q.Query(`WITH r(agent_id, docs, tokens) AS (
			SELECT agent_id, count(*), sum(ntok) FROM (` + strings.Join(parts, " UNION ALL ") + `) GROUP BY agent_id)
		SELECT coalesce(s.agent_id, r.agent_id), coalesce(s.docs, 0), coalesce(s.tokens, 0), coalesce(r.docs, 0), coalesce(r.tokens, 0)
		FROM r FULL JOIN text_stats s ON s.agent_id = r.agent_id
		WHERE coalesce(s.docs, 0) <> coalesce(r.docs, 0) OR coalesce(s.tokens, 0) <> coalesce(r.tokens, 0)`)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (TextStatsMismatch, error) {
		var x TextStatsMismatch
		err := r.Scan(&x.Agent, &x.StatsDocs, &x.StatsTokens, &x.TableDocs, &x.TableTokens)
		return x, err
	})
}

// BadTermVectors counts the rows of kind k whose term vector or length is
// not what their indexed texts make (a row without one is fine: it is
// scored from its text). It returns the driver's errors.
func BadTermVectors(q Querier, k *Kind) (int, error) {
	rows, err := q.Query(`SELECT t.terms, t.ntok, ` + k.IndexedOver("t") + ` FROM ` + k.Table + ` t WHERE t.terms IS NOT NULL`)
	if err != nil {
		return 0, err
	}
	texts := make([]string, len(k.Indexed))
	var terms []byte
	var ntok int
	dest := TextsDest(texts, &terms, &ntok)
	bad, err := ScanAll(rows, func(r Scanner) (bool, error) {
		if err := r.Scan(dest...); err != nil {
			return false, err
		}
		v, n := bm25.Vector(texts...)
		return n != ntok || !bytes.Equal(v, terms), nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bad {
		if b {
			n++
		}
	}
	return n, nil
}
