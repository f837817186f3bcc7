// Package postgres holds engram's store on PostgreSQL. So far it holds
// the schema (schema.sql): the tables and indexes of the SQLite schema's
// current version keyed by agent_id first, without FTS5 and vec0, and the
// plpgsql triggers that keep the text statistics and change counters,
// record history (in a session that has history_ctx, see
// HistoryContextSQL) and keep the vectors in step with the rows (once the
// database was opened at Tier 2); and Migrate, which brings a database's
// schema up to date once when several processes start together.
package postgres

import _ "embed" // schema.sql

// Schema is the SQL that makes engram's tables, indexes and triggers in
// an empty PostgreSQL database (PostgreSQL 15 or newer), in one script
// for one simple-protocol Exec: Migrate's version 1. Its header says how
// it differs from the SQLite schema.
//
//go:embed schema.sql
var Schema string

// SchemaVersion is the SQLite schema version (internal/schema) whose
// tables Schema holds.
const SchemaVersion = 14
