package store

import "time"

// RuleRow is an extraction rule as the extraction_rules table holds it.
type RuleRow struct {
	Name, Pattern, Type string
	Importance          float64
	Tags                []string
	Active              bool
	CreatedAt           time.Time
	// Subject, Predicate and Object are a fact rule's templates.
	Subject, Predicate, Object string
}

// InsertRule adds an agent's rule; a rule of that name already there is
// a unique violation (see IsUniqueViolation).
// Errors are the driver's.
func InsertRule(q Querier, agent string, r RuleRow) error {
	_, err := q.Exec(`INSERT INTO extraction_rules (agent_id, name, pattern, memory_type, importance, tags, active, created_at,
			subject, predicate, object)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, agent, r.Name, r.Pattern, r.Type, r.Importance,
		EncodeTags(r.Tags), r.Active, MS(r.CreatedAt), r.Subject, r.Predicate, r.Object)
	return err
}

// SetRuleActive turns an agent's rule on or off, and reports whether the
// agent has it.
// Errors are the driver's.
func SetRuleActive(q Querier, agent, name string, active bool) (bool, error) {
	return affected(q.Exec(`UPDATE extraction_rules SET active = ? WHERE agent_id = ? AND name = ?`, active, agent, name))
}

// DeleteRule removes an agent's rule, and reports whether the agent had
// it.
// Errors are the driver's.
func DeleteRule(q Querier, agent, name string) (bool, error) {
	return affected(q.Exec(`DELETE FROM extraction_rules WHERE agent_id = ? AND name = ?`, agent, name))
}

// Rules returns an agent's rules (only the active ones with activeOnly)
// by name. A row whose tags do not decode is an error.
func Rules(q Querier, agent string, activeOnly bool) ([]RuleRow, error) {
	rows, err := q.Query(`SELECT name, pattern, memory_type, importance, tags, active, created_at, subject, predicate, object
		FROM extraction_rules WHERE agent_id = ? AND (active <> 0 OR ? = 0) ORDER BY name`, agent, activeOnly)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(s Scanner) (RuleRow, error) {
		var r RuleRow
		var tags string
		var created int64
		if err := s.Scan(&r.Name, &r.Pattern, &r.Type, &r.Importance, &tags, &r.Active, &created, &r.Subject, &r.Predicate, &r.Object); err != nil {
			return r, err
		}
		r.CreatedAt = FromMS(created)
		var err error
		r.Tags, err = DecodeTags(tags)
		return r, err
	})
}
