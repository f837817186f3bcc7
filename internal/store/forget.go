package store

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// TypedID names a memory of an agent: its kind and ID.
type TypedID struct {
	Type string `json:"t"`
	ID   string `json:"i"`
}

// ArchiveSelect selects archive entries of an agent: those of ID (of
// kind Type only, when it is not ""), or of the kinds Types whose row's
// user is User, or those archived before Before, or, with Every, all of
// them. Exactly one of ID, Types, Before and Every is set.
type ArchiveSelect struct {
	ID, Type string
	Types    []string
	User     string
	Before   time.Time
	Every    bool
}

// where returns the condition of sel over the archive, with the agent as
// ?1, and its arguments, none or one bound as the parameter p (so that
// no parameter goes unused: PostgreSQL cannot type one); kinds are
// constants of the root package's registry, quoted into the statement.
func (sel ArchiveSelect) where(p string) (string, []any) {
	switch {
	case sel.ID != "" && sel.Type != "":
		return `id = ` + p + ` AND memory_type = ` + forgetKindLit(sel.Type), []any{sel.ID}
	case sel.ID != "":
		return `id = ` + p, []any{sel.ID}
	case sel.Types != nil:
		return forgetKindsIn(sel.Types) + ` AND (row ->> '$.user_id') = ` + p, []any{sel.User}
	case sel.Every:
		return `1`, nil
	}
	return `archived_at < ` + p, []any{MS(sel.Before)}
}

// forgetKindLit quotes a kind's name as an SQL string.
func forgetKindLit(typ string) string { return `'` + strings.ReplaceAll(typ, `'`, `''`) + `'` }

// forgetKindsIn is the condition that memory_type is one of types.
func forgetKindsIn(types []string) string {
	quoted := make([]string, len(types))
	for i, t := range types {
		quoted[i] = forgetKindLit(t)
	}
	return "memory_type IN (" + strings.Join(quoted, ", ") + ")"
}

// ArchivedTexts returns the texts of the agent's archive entries of kind
// typ that sel selects: textExpr, an SQL expression over the entry's JSON
// copy of its row that the root package builds from its registry of
// kinds, passed as a string for now ("" where it is NULL). It returns the
// driver's errors unchanged.
func ArchivedTexts(q Querier, agent, typ, textExpr string, sel ArchiveSelect) ([]string, error) {
	where, args := sel.where("?3")
	rows, err := q.Query(`SELECT coalesce(`+textExpr+`, '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND `+where,
		append([]any{agent, typ}, args...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanAgentString)
}

// DeleteCachedTexts deletes the embedding cache's copies of the texts
// whose hashes are given that no memory's row names (those kept for a
// restore from the archive), whatever the model. It returns the driver's
// errors unchanged.
func DeleteCachedTexts(q Querier, hashes [][]byte) error {
	list := make([]string, len(hashes))
	for i, h := range hashes {
		list[i] = hex.EncodeToString(h)
	}
	b, _ := json.Marshal(list) // a []string always marshals
	_, err := q.Exec(`DELETE FROM embedding_cache WHERE hash IN (SELECT unhex(value) FROM json_each(?)) AND memory_pk IS NULL`, string(b))
	return err
}

// DeleteArchived deletes the agent's archive entries that sel selects and
// returns their kinds, one per entry. It returns the driver's errors
// unchanged.
func DeleteArchived(q Querier, agent string, sel ArchiveSelect) ([]string, error) {
	where, args := sel.where("?2")
	rows, err := q.Query(`DELETE FROM archive WHERE agent_id = ?1 AND `+where+` RETURNING memory_type`, append([]any{agent}, args...)...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanAgentString)
}

// DeleteMemoryRow deletes the agent's row id of table, the table of a
// kind in the root package's registry (passed as a string for now), and
// reports whether there was one. It returns the driver's errors
// unchanged.
func DeleteMemoryRow(q Querier, table, agent, id string) (bool, error) {
	n, err := deleting(q, table, `DELETE FROM `+table+` WHERE agent_id = ? AND id = ?`, agent, id)
	return n > 0, err
}

// deleting runs stmt, a DELETE from table, and returns how many rows it
// deleted: reported to q (see [Change]) when table is a kind's.
// Errors are the driver's.
func deleting(q Querier, table, stmt string, args ...any) (int64, error) {
	if k := KindOfTable(table); k != nil {
		return changing(q, k, ChangeDelete, stmt, args...)
	}
	res, err := q.Exec(stmt, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// DeleteLinksOf deletes the agent's links from and to the memory id (of
// kind only, when only is not ""). It returns the driver's errors
// unchanged.
func DeleteLinksOf(q Querier, agent, id, only string) error {
	links := `DELETE FROM zettel_links WHERE agent_id = ?1 AND (source_id = ?2 OR target_id = ?2)`
	if only != "" {
		links = `DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_id = ?2 AND source_type = ` + forgetKindLit(only) +
			`) OR (target_id = ?2 AND target_type = ` + forgetKindLit(only) + `))`
	}
	_, err := q.Exec(links, agent, id)
	return err
}

// DeleteMarkdownLine deletes the line memory.md last showed of the
// agent's memory id. It returns the driver's errors unchanged.
func DeleteMarkdownLine(q Querier, agent, id string) error {
	_, err := q.Exec(`DELETE FROM markdown_lines WHERE agent_id = ? AND id = ?`, agent, id)
	return err
}

// DeleteHistoryOf deletes the history of the agent's memory id (of kind
// only, when only is not ""), but for its entries of operation keep, and
// returns the kinds of the entries deleted, one per entry. It returns the
// driver's errors unchanged.
func DeleteHistoryOf(q Querier, agent, id, only, keep string) ([]string, error) {
	ofKind := ""
	if only != "" {
		ofKind = ` AND memory_type = ` + forgetKindLit(only)
	}
	rows, err := q.Query(`DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ?`+ofKind+` RETURNING memory_type`, agent, id, keep)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanAgentString)
}

// RecordForgotten writes, for each memory of refs, the history entry of
// operation op, without content, with the actor, reason and time of the
// history's context (see HistoryContext). It returns the driver's errors
// unchanged.
func RecordForgotten(q Querier, agent, op string, refs []TypedID) error {
	list, err := json.Marshal(refs)
	if err != nil {
		return err
	}
	_, err = q.Exec(`INSERT INTO history (agent_id, memory_type, id, op, actor, reason, at)
			SELECT ?1, p.t, p.i, ?3, c.actor, c.reason, c.at FROM (`+typedIDPairs+`) p, temp.history_ctx c`, agent, string(list), op)
	return err
}

// typedIDPairs reads the JSON list of TypedIDs bound as ?2 as rows (t, i).
const typedIDPairs = `SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j`

// PurgeTombstones merges the full-text index fts (a kind's, from the root
// package's registry, passed as a string for now) so that the terms its
// deletes left in it go. It returns the driver's errors unchanged.
func PurgeTombstones(q Querier, fts string) error {
	_, err := q.Exec(`INSERT INTO ` + fts + `(` + fts + `) VALUES ('optimize')`)
	return err
}

// DeleteAgentRows deletes every row of agent in table (a name AgentTables
// returned, or a kind's table) and returns how many it deleted. It
// returns the driver's errors unchanged.
func DeleteAgentRows(q Querier, table, agent string) (int64, error) {
	return deleting(q, table, `DELETE FROM "`+table+`" WHERE agent_id = ?`, agent)
}

// agentKey is the condition that a meta key is one of the agent's
// ('<name>:<agent>', the agent being ?1): its suffix is ':' and the
// agent. (The key's index cannot serve it either way.)
const agentKey = `substr(key, length(key) - length(CAST(?1 AS TEXT))) = ':' || ?1`

// DeleteAgentMeta deletes the agent's entries of meta. It returns the
// driver's errors unchanged.
func DeleteAgentMeta(q Querier, agent string) error {
	_, err := q.Exec(`DELETE FROM meta WHERE `+agentKey, agent)
	return err
}

// ArchivedOfUser returns the agent's archive entries of the kinds types
// whose row's user is user. It returns the driver's errors unchanged.
func ArchivedOfUser(q Querier, agent string, types []string, user string) ([]TypedID, error) {
	return queryTypedIDs(q, `SELECT memory_type, id FROM archive WHERE agent_id = ?1 AND `+forgetKindsIn(types)+` AND (row ->> '$.user_id') = ?2`, agent, user)
}

// DeleteUserRows deletes the agent's rows of kind k (which has a user
// column) whose user is user (not ""), and returns them as memories of
// kind typ, the root's name of k. It returns the driver's errors
// unchanged.
func DeleteUserRows(q Querier, k *Kind, typ, agent, user string) ([]TypedID, error) {
	rows, err := q.Query(`DELETE FROM `+k.Table+` WHERE agent_id = ? AND `+k.UserCol+` = ? AND `+k.UserCol+` <> ''`+k.returning(ChangeDelete), agent, user)
	if err != nil {
		return nil, err
	}
	var out []TypedID
	_, err = reportRows(q, k, ChangeDelete, rows, func(c Change) { out = append(out, TypedID{Type: typ, ID: c.ID}) })
	return out, err
}

// HistoryOfUser returns the memories of the kinds types whose history
// entries hold user as the user before or after a change, once each. It
// returns the driver's errors unchanged.
func HistoryOfUser(q Querier, agent string, types []string, user string) ([]TypedID, error) {
	return queryTypedIDs(q, `SELECT DISTINCT memory_type, id FROM history WHERE agent_id = ?1 AND `+forgetKindsIn(types)+`
		AND ((before ->> '$.user_id') = ?2 OR (after ->> '$.user_id') = ?2)`, agent, user)
}

// DeleteRefsTraces deletes the links from and to the agent's memories
// refs, the lines memory.md last showed of them and their history. It
// returns the driver's errors unchanged.
func DeleteRefsTraces(q Querier, agent string, refs []TypedID) error {
	list, err := json.Marshal(refs)
	if err != nil {
		return err
	}
	for _, stmt := range []string{
		`DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_type, source_id) IN (` + typedIDPairs + `) OR (target_type, target_id) IN (` + typedIDPairs + `))`,
		`DELETE FROM markdown_lines WHERE agent_id = ?1 AND id IN (SELECT i FROM (` + typedIDPairs + `))`,
		`DELETE FROM history WHERE pk IN (SELECT h.pk FROM (` + typedIDPairs + `) p JOIN history h ON h.agent_id = ?1 AND h.id = p.i AND h.memory_type = p.t)`,
	} {
		if _, err := q.Exec(stmt, agent, string(list)); err != nil {
			return err
		}
	}
	return nil
}

// IDsSelected returns the IDs of the agent's rows of kind k that sel
// selects. It returns the driver's errors unchanged.
func IDsSelected(q Querier, k *Kind, agent string, sel Selection) ([]string, error) {
	stmt, args := sel.Statement(k, "id", agent)
	rows, err := q.Query(stmt, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, scanAgentString)
}

func queryTypedIDs(q Querier, query string, args ...any) ([]TypedID, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (TypedID, error) {
		var m TypedID
		err := r.Scan(&m.Type, &m.ID)
		return m, err
	})
}
