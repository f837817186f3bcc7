package engram

import (
	"context"
	"strings"
)

// ListAll returns the agent's memories of every stored kind that
// opts.Filter keeps (all of them without a filter), newest first (then by
// kind and ID), a page at a time: opts.Limit of them (0 means 100, at most
// 1000) after the first opts.Offset. Each [Result] carries the memory's
// kind, ID, text (as a search shows it), tags, creation time and, for a
// document chunk, its Source; its Score is 0. Facts are listed while they
// hold, as a search finds them; archived memories and the working set are
// not listed.
//
// It returns an error matching [ErrInvalid] for bad options (a bad part
// of the filter is named), [ErrClosed] after Close and a [*DatabaseError]
// when SQLite fails.
func (m *Memory) ListAll(ctx context.Context, opts ListOptions) ([]Result, error) {
	limit, offset, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	sc, err := m.listScope(opts.Filter)
	if err != nil {
		return nil, err
	}
	query, args := listQuery(sc, m.agent, ms(m.now()), limit, offset)
	if query == "" {
		return nil, nil
	}
	var out []Result
	err = m.read(ctx, "list", func(q *dbtx) error {
		rows, err := q.query(query, args...)
		if err != nil {
			return err
		}
		out, err = scanAll(rows, func(r scanner) (Result, error) {
			var res Result
			var typ, tags string
			var created int64
			if err := r.Scan(&typ, &res.ID, &res.Content, &tags, &created, &res.Source); err != nil {
				return res, err
			}
			res.Type, res.CreatedAt = MemoryType(typ), fromMS(created)
			var err error
			res.Tags, err = decodeTags(tags)
			return res, err
		})
		return err
	})
	return out, err
}

// listQuery returns the query of a ListAll page and its arguments, or ""
// when the scope admits no kind.
func listQuery(sc *scope, agent string, now int64, limit, offset int) (string, []any) {
	var parts []string
	var args []any
	for _, k := range kinds {
		if !sc.admitsKind(k) {
			continue
		}
		cond, cargs := sc.whereOrAll(k, "t")
		// Each kind's newest offset+limit, by its index of the scope
		// or of its times, then the page of them all.
		parts = append(parts, `SELECT * FROM (SELECT '`+string(k.typ)+`' AS typ, t.id AS id, `+k.textOver("t")+` AS content,
			`+k.tagsOver("t")+` AS tags, t.created_at AS created_at, `+k.citeOver("t")+` AS source
			FROM `+k.table+` t WHERE t.agent_id = ? AND `+k.liveAt("t", "?")+` AND `+cond+`
			ORDER BY `+sc.orderBy("t.created_at DESC, t.id")+` LIMIT ?)`)
		args = append(args, agent)
		if k.live != "" {
			args = append(args, now, now)
		}
		args = append(append(args, cargs...), offset+limit)
	}
	if len(parts) == 0 {
		return "", nil
	}
	return strings.Join(parts, " UNION ALL ") + ` ORDER BY created_at DESC, typ, id LIMIT ? OFFSET ?`, append(args, limit, offset)
}

// listScope validates a listing's or an export's filter and compiles it;
// nil for none.
func (m *Memory) listScope(f *Filter) (*scope, error) {
	if f == nil {
		return nil, nil
	}
	if err := f.validate("Filter", m.cfg.Limits); err != nil {
		return nil, err
	}
	sc := newScope(f.clone())
	return &sc, nil
}
