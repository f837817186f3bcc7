package store

import (
	"database/sql"
	"errors"
	"strconv"
)

// The meta table holds the database's own key-value bookkeeping: format
// marks, per-agent change counters, records of work in progress.

// Meta returns the value of a meta key, and whether it is set.
// Errors are the driver's.
func Meta(q Querier, key string) (string, bool, error) {
	var v string
	err := q.QueryRow(`SELECT value FROM meta WHERE key = ?`, []any{key}, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// SetMeta writes a meta value.
// Errors are the driver's.
func SetMeta(q Querier, key, value string) error {
	_, err := q.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// DeleteMeta removes a meta key; removing one that is unset is no error.
func DeleteMeta(q Querier, key string) error {
	_, err := q.Exec(`DELETE FROM meta WHERE key = ?`, key)
	return err
}

// MetaKeys returns the meta keys that begin with prefix, in order.
// Errors are the driver's.
func MetaKeys(q Querier, prefix string) ([]string, error) {
	rows, err := q.Query(`SELECT key FROM meta WHERE key >= ? AND key < ? ORDER BY key`, prefix, prefixEnd(prefix))
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(s Scanner) (string, error) {
		var k string
		err := s.Scan(&k)
		return k, err
	})
}

// prefixEnd returns the least string greater than every string that
// begins with prefix, for a range scan; prefix must end in a byte below
// 0xff (engram's keys end in ':' or '.').
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	b[len(b)-1]++
	return string(b)
}

// Counter reads a meta counter: a per-agent change counter that an
// in-process cache compares with what it last saw (0 before the first
// change).
// Errors are the driver's.
func Counter(q Querier, key string) (int64, error) {
	var v int64
	err := q.QueryRow(`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`, []any{key}, &v)
	return v, err
}

// BumpCounter moves a meta counter on by n. (The triggers of migration
// 0002 and of the Tier 2 schema do the same in SQL.) n goes as text, the
// column's type, which PostgreSQL takes for the parameter's.
// Errors are the driver's.
func BumpCounter(q Querier, key string, n int) error {
	_, err := q.Exec(`INSERT INTO meta (key, value) VALUES (?1, ?2)
		ON CONFLICT (key) DO UPDATE SET value = CAST(meta.value AS INTEGER) + CAST(?2 AS INTEGER)`, key, strconv.Itoa(n))
	return err
}

// SetMetaIfUnset writes a meta value unless the key is set.
// Errors are the driver's.
func SetMetaIfUnset(q Querier, key, value string) error {
	_, err := q.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING`, key, value)
	return err
}
