
			WITH RECURSIVE
			start(kind, id) AS (SELECT 'semantic' AS kind, id FROM semantic_memory WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'episodic' AS kind, id FROM episodic_log WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'procedural' AS kind, id FROM procedural_memory WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'fact' AS kind, id FROM facts WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'document' AS kind, id FROM document_chunks WHERE agent_id = ?1 AND id = ?2),
			walk(kind, id, depth) AS (
				SELECT kind, id, 0 FROM start
				UNION
				SELECT l.target_type, l.target_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.source_type = w.kind AND l.source_id = w.id
					WHERE w.depth < ?3
				UNION
				SELECT l.source_type, l.source_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.target_type = w.kind AND l.target_id = w.id
					WHERE w.depth < ?3)
			SELECT (SELECT count(*) FROM start), kind, id, min(depth) AS d FROM walk
			GROUP BY kind, id
			ORDER BY d, kind, id
;


	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM json_each(?2) j CROSS JOIN episodic_log e ON e.pk = CAST(j.value AS INTEGER)
		WHERE e.agent_id = ?1 AND e.session_id <> ''),
	near(hit, pk) AS MATERIALIZED (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT e.pk, e.id, '[]', e.created_at, 0.5 * e.resonance, e.created_at, e.retrievals, 1, n.hit FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND ((coalesce(json_type(e.metadata, ?5) = 'text' AND (e.metadata ->> ?6) = ?7, 0) OR coalesce(json_type(e.metadata, ?8) IN ('integer', 'real') AND (e.metadata ->> ?9) <= ?10, 0)))
;


	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM json_each(?2) j CROSS JOIN episodic_log e ON e.pk = CAST(j.value AS INTEGER)
		WHERE e.agent_id = ?1 AND e.session_id <> ''),
	near(hit, pk) AS MATERIALIZED (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT e.pk, e.id, '[]', e.created_at, 0.5 * e.resonance, e.created_at, e.retrievals, 1, n.hit FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND ((coalesce(json_type(e.metadata, ?5) = 'text' AND (e.metadata ->> ?6) > ?7, 0) AND coalesce(json_type(e.metadata, ?8) = 'text' AND (e.metadata ->> ?9) < ?10, 0)))
;


	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM json_each(?2) j CROSS JOIN episodic_log e ON e.pk = CAST(j.value AS INTEGER)
		WHERE e.agent_id = ?1 AND e.session_id <> ''),
	near(hit, pk) AS MATERIALIZED (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT e.pk, e.id, '[]', e.created_at, 0.5 * e.resonance, e.created_at, e.retrievals, 1, n.hit FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND (e.user_id = ?5 AND e.user_id <> '' AND NOT (json_type(e.metadata, ?6) IS NOT NULL))
;


	WITH hit AS (
		SELECT e.id, e.session_id, e.created_at, e.pk FROM json_each(?2) j CROSS JOIN episodic_log e ON e.pk = CAST(j.value AS INTEGER)
		WHERE e.agent_id = ?1 AND e.session_id <> ''),
	near(hit, pk) AS MATERIALIZED (
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) < (h.created_at, h.pk)
			ORDER BY x.created_at DESC, x.pk DESC LIMIT 1) FROM hit h
		UNION ALL
		SELECT h.id, (SELECT x.pk FROM episodic_log x
			WHERE x.agent_id = ?1 AND x.session_id = h.session_id AND x.session_id <> '' AND (x.created_at, x.pk) > (h.created_at, h.pk)
			ORDER BY x.created_at, x.pk LIMIT 1) FROM hit h)
	SELECT e.pk, e.id, '[]', e.created_at, 0.5 * e.resonance, e.created_at, e.retrievals, 1, n.hit FROM near n JOIN episodic_log e ON e.pk = n.pk
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND (e.user_id = ?5 AND e.user_id <> '' AND coalesce(json_type(e.metadata, ?6) = 'text' AND (e.metadata ->> ?7) = ?8, 0))
;

DELETE FROM temp.changes RETURNING kind, pk, agent_id, id
;

INSERT INTO document_chunks (agent_id, id, source, heading, chunk, title, tags, content, content_hash, sources, created_at, updated_at, retrievals, terms, ntok)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.source'), json_extract(row, '$.heading'), json_extract(row, '$.chunk'), json_extract(row, '$.title'), json_extract(row, '$.tags'), json_extract(row, '$.content'), unhex(nullif(json_extract(row, '$.content_hash'), '')), json_extract(row, '$.sources'), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0) FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

INSERT INTO episodic_log (agent_id, id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, resonance, retrievals, terms, ntok, user_id)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.content'), json_extract(row, '$.event_type'), json_extract(row, '$.task_id'), coalesce(json_extract(row, '$.session_id'), ''), json_extract(row, '$.cost'), json_extract(row, '$.duration_ns'), coalesce(json_extract(row, '$.metadata'), '{}'), json_extract(row, '$.created_at'), json_extract(row, '$.resonance'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), '') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

INSERT INTO history (agent_id, memory_type, id, op, actor, reason, at)
			SELECT ?1, p.t, p.i, ?3, c.actor, c.reason, c.at FROM (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j) p, temp.history_ctx c
;

INSERT INTO procedural_memory (agent_id, id, name, description, pattern, success_rate, use_count, tags, disabled, created_at, updated_at, resonance, retrievals, terms, ntok, user_id, session_id, metadata)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.name'), json_extract(row, '$.description'), json_extract(row, '$.pattern'), json_extract(row, '$.success_rate'), json_extract(row, '$.use_count'), json_extract(row, '$.tags'), json_extract(row, '$.disabled'), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), json_extract(row, '$.resonance'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), ''), coalesce(json_extract(row, '$.session_id'), ''), coalesce(json_extract(row, '$.metadata'), '{}') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, name, description
;

INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, promoted_at_count, retrievals, terms, ntok, user_id, session_id, metadata)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.content'), json_extract(row, '$.summary'), json_extract(row, '$.importance'), json_extract(row, '$.verified'), json_extract(row, '$.tags'), json_extract(row, '$.source'), unhex(nullif(json_extract(row, '$.content_hash'), '')), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), json_extract(row, '$.access_count'), json_extract(row, '$.last_accessed_at'), json_extract(row, '$.resonance'), json_extract(row, '$.merged_from'), coalesce(json_extract(row, '$.promoted_at_count'), 0), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), ''), coalesce(json_extract(row, '$.session_id'), ''), coalesce(json_extract(row, '$.metadata'), '{}') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))))) AND ((t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.source_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0))))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0)))) OR (t.target_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0) OR coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) <= ?, 0))))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.source_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0))))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0)))) OR (t.target_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND (coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) > ?, 0) AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) < ?, 0))))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND NOT coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND NOT coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.source_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) = 'true', 0)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) = 'true', 0))) OR (t.target_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) = 'true', 0)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.source_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0))) OR (t.target_type = 'fact' AND EXISTS (SELECT 1 FROM facts x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND coalesce(json_type(x.metadata, ?) IN ('integer', 'real') AND (x.metadata ->> ?) >= ?, 0)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, v.embedding FROM episodic_log t JOIN vec_episodic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0)) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND NOT coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.session_id = ?8 AND episodic_log.session_id <> '' AND coalesce(json_type(episodic_log.metadata, ?9) = 'text' AND (episodic_log.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.session_id = ?8 AND procedural_memory.session_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?9) = 'text' AND (procedural_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.session_id = ?8 AND semantic_memory.session_id <> '' AND coalesce(json_type(semantic_memory.metadata, ?9) = 'text' AND (semantic_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND (coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) = ?, 0) OR coalesce(json_type(episodic_log.metadata, ?) IN ('integer', 'real') AND (episodic_log.metadata ->> ?) <= ?, 0)) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND (coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) > ?, 0) AND coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) < ?, 0)) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND coalesce(json_type(episodic_log.metadata, ?) = 'true', 0) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND coalesce(json_type(episodic_log.metadata, ?) IN ('integer', 'real') AND (episodic_log.metadata ->> ?) >= ?, 0) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND NOT (json_type(episodic_log.metadata, ?) IS NOT NULL) ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) = ?, 0) ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND NOT (json_type(episodic_log.metadata, ?9) IS NOT NULL) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND coalesce(json_type(episodic_log.metadata, ?9) = 'text' AND (episodic_log.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND (coalesce(json_type(episodic_log.metadata, ?8) = 'text' AND (episodic_log.metadata ->> ?9) = ?10, 0) OR coalesce(json_type(episodic_log.metadata, ?11) IN ('integer', 'real') AND (episodic_log.metadata ->> ?12) <= ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND (coalesce(json_type(episodic_log.metadata, ?8) = 'text' AND (episodic_log.metadata ->> ?9) > ?10, 0) AND coalesce(json_type(episodic_log.metadata, ?11) = 'text' AND (episodic_log.metadata ->> ?12) < ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND (coalesce(json_type(episodic_log.metadata, ?8) IN ('integer', 'real') AND (episodic_log.metadata ->> ?9) >= ?10, 0) AND NOT (coalesce(json_type(episodic_log.metadata, ?11) = 'text' AND (episodic_log.metadata ->> ?12) = ?13, 0))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND (coalesce(json_type(episodic_log.metadata, ?8) IN ('integer', 'real') AND (episodic_log.metadata ->> ?9) >= ?10, 0) AND NOT coalesce(json_type(episodic_log.metadata, ?11) = 'text' AND (episodic_log.metadata ->> ?12) = ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND coalesce(json_type(episodic_log.metadata, ?8) = 'text' AND (episodic_log.metadata ->> ?9) = ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND coalesce(json_type(episodic_log.metadata, ?8) = 'true', 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND coalesce(json_type(episodic_log.metadata, ?8) IN ('integer', 'real') AND (episodic_log.metadata ->> ?9) >= ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.session_id = ?8 AND episodic_log.session_id <> '' AND coalesce(json_type(episodic_log.metadata, ?9) = 'text' AND (episodic_log.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND (coalesce(json_type(semantic_memory.metadata, ?) = 'text' AND (semantic_memory.metadata ->> ?) = ?, 0) OR coalesce(json_type(semantic_memory.metadata, ?) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?) <= ?, 0)) ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND (coalesce(json_type(semantic_memory.metadata, ?) = 'text' AND (semantic_memory.metadata ->> ?) > ?, 0) AND coalesce(json_type(semantic_memory.metadata, ?) = 'text' AND (semantic_memory.metadata ->> ?) < ?, 0)) ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND NOT coalesce(json_type(semantic_memory.metadata, ?) = 'text' AND (semantic_memory.metadata ->> ?) = ?, 0) ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND coalesce(json_type(semantic_memory.metadata, ?) = 'true', 0) ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND coalesce(json_type(semantic_memory.metadata, ?) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?) >= ?, 0) ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND NOT (json_type(semantic_memory.metadata, ?) IS NOT NULL) ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND coalesce(json_type(semantic_memory.metadata, ?) = 'text' AND (semantic_memory.metadata ->> ?) = ?, 0) ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND NOT (json_type(semantic_memory.metadata, ?9) IS NOT NULL) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND coalesce(json_type(semantic_memory.metadata, ?9) = 'text' AND (semantic_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND (coalesce(json_type(semantic_memory.metadata, ?8) = 'text' AND (semantic_memory.metadata ->> ?9) = ?10, 0) OR coalesce(json_type(semantic_memory.metadata, ?11) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?12) <= ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND (coalesce(json_type(semantic_memory.metadata, ?8) = 'text' AND (semantic_memory.metadata ->> ?9) > ?10, 0) AND coalesce(json_type(semantic_memory.metadata, ?11) = 'text' AND (semantic_memory.metadata ->> ?12) < ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND (coalesce(json_type(semantic_memory.metadata, ?8) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?9) >= ?10, 0) AND NOT (coalesce(json_type(semantic_memory.metadata, ?11) = 'text' AND (semantic_memory.metadata ->> ?12) = ?13, 0))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND (coalesce(json_type(semantic_memory.metadata, ?8) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?9) >= ?10, 0) AND NOT coalesce(json_type(semantic_memory.metadata, ?11) = 'text' AND (semantic_memory.metadata ->> ?12) = ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND NOT coalesce(json_type(semantic_memory.metadata, ?8) = 'text' AND (semantic_memory.metadata ->> ?9) = ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND coalesce(json_type(semantic_memory.metadata, ?8) = 'text' AND (semantic_memory.metadata ->> ?9) = ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND coalesce(json_type(semantic_memory.metadata, ?8) = 'true', 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND coalesce(json_type(semantic_memory.metadata, ?8) IN ('integer', 'real') AND (semantic_memory.metadata ->> ?9) >= ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.session_id = ?8 AND semantic_memory.session_id <> '' AND coalesce(json_type(semantic_memory.metadata, ?9) = 'text' AND (semantic_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND (coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) = ?, 0) OR coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) = ?, 0)) ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND (coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) = ?, 0) OR coalesce(json_type(procedural_memory.metadata, ?) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?) <= ?, 0)) ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND (coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) > ?, 0) AND coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) < ?, 0)) ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND coalesce(json_type(procedural_memory.metadata, ?) = 'true', 0) ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND coalesce(json_type(procedural_memory.metadata, ?) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?) >= ?, 0) ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND NOT (json_type(procedural_memory.metadata, ?) IS NOT NULL) ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?) = 'text' AND (procedural_memory.metadata ->> ?) = ?, 0) ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND NOT (json_type(procedural_memory.metadata, ?9) IS NOT NULL) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?9) = 'text' AND (procedural_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND (coalesce(json_type(procedural_memory.metadata, ?8) = 'text' AND (procedural_memory.metadata ->> ?9) = ?10, 0) OR coalesce(json_type(procedural_memory.metadata, ?11) = 'text' AND (procedural_memory.metadata ->> ?12) = ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND (coalesce(json_type(procedural_memory.metadata, ?8) = 'text' AND (procedural_memory.metadata ->> ?9) = ?10, 0) OR coalesce(json_type(procedural_memory.metadata, ?11) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?12) <= ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND (coalesce(json_type(procedural_memory.metadata, ?8) = 'text' AND (procedural_memory.metadata ->> ?9) > ?10, 0) AND coalesce(json_type(procedural_memory.metadata, ?11) = 'text' AND (procedural_memory.metadata ->> ?12) < ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND (coalesce(json_type(procedural_memory.metadata, ?8) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?9) >= ?10, 0) AND NOT (coalesce(json_type(procedural_memory.metadata, ?11) = 'text' AND (procedural_memory.metadata ->> ?12) = ?13, 0))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND (coalesce(json_type(procedural_memory.metadata, ?8) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?9) >= ?10, 0) AND NOT coalesce(json_type(procedural_memory.metadata, ?11) = 'text' AND (procedural_memory.metadata ->> ?12) = ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND NOT (json_type(procedural_memory.metadata, ?8) IS NOT NULL) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND coalesce(json_type(procedural_memory.metadata, ?8) = 'text' AND (procedural_memory.metadata ->> ?9) = ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND coalesce(json_type(procedural_memory.metadata, ?8) = 'true', 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND coalesce(json_type(procedural_memory.metadata, ?8) IN ('integer', 'real') AND (procedural_memory.metadata ->> ?9) >= ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.session_id = ?8 AND procedural_memory.session_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?9) = 'text' AND (procedural_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND (coalesce(json_type(facts.metadata, ?8) = 'text' AND (facts.metadata ->> ?9) = ?10, 0) OR coalesce(json_type(facts.metadata, ?11) IN ('integer', 'real') AND (facts.metadata ->> ?12) <= ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND (coalesce(json_type(facts.metadata, ?8) = 'text' AND (facts.metadata ->> ?9) > ?10, 0) AND coalesce(json_type(facts.metadata, ?11) = 'text' AND (facts.metadata ->> ?12) < ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND (coalesce(json_type(facts.metadata, ?8) IN ('integer', 'real') AND (facts.metadata ->> ?9) >= ?10, 0) AND NOT (coalesce(json_type(facts.metadata, ?11) = 'text' AND (facts.metadata ->> ?12) = ?13, 0))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND (coalesce(json_type(facts.metadata, ?8) IN ('integer', 'real') AND (facts.metadata ->> ?9) >= ?10, 0) AND NOT coalesce(json_type(facts.metadata, ?11) = 'text' AND (facts.metadata ->> ?12) = ?13, 0)) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND NOT (json_type(facts.metadata, ?8) IS NOT NULL) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND coalesce(json_type(facts.metadata, ?8) = 'text' AND (facts.metadata ->> ?9) = ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND coalesce(json_type(facts.metadata, ?8) = 'true', 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) AND coalesce(json_type(facts.metadata, ?8) IN ('integer', 'real') AND (facts.metadata ->> ?9) >= ?10, 0) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND (coalesce(json_type(f.metadata, ?) = 'text' AND (f.metadata ->> ?) = ?, 0) OR coalesce(json_type(f.metadata, ?) IN ('integer', 'real') AND (f.metadata ->> ?) <= ?, 0)) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND (coalesce(json_type(f.metadata, ?) = 'text' AND (f.metadata ->> ?) > ?, 0) AND coalesce(json_type(f.metadata, ?) = 'text' AND (f.metadata ->> ?) < ?, 0)) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND coalesce(json_type(f.metadata, ?) = 'true', 0) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND coalesce(json_type(f.metadata, ?) IN ('integer', 'real') AND (f.metadata ->> ?) >= ?, 0) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT op, reason FROM temp.history_ctx
;

SELECT t.id, json_object('id', t.id, 'content', t.content, 'event_type', t.event_type, 'task_id', t.task_id, 'session_id', t.session_id, 'cost', t.cost, 'duration_ns', t.duration_ns, 'metadata', CASE WHEN json_valid(t.metadata) THEN json(t.metadata) ELSE t.metadata END, 'created_at', t.created_at, 'user_id', t.user_id) FROM episodic_log t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.id, json_object('id', t.id, 'content', t.content, 'summary', t.summary, 'importance', t.importance, 'verified', t.verified, 'tags', CASE WHEN json_valid(t.tags) THEN json(t.tags) ELSE t.tags END, 'source', t.source, 'created_at', t.created_at, 'updated_at', t.updated_at, 'merged_from', CASE WHEN json_valid(t.merged_from) THEN json(t.merged_from) ELSE t.merged_from END, 'user_id', t.user_id, 'session_id', t.session_id, 'metadata', CASE WHEN json_valid(t.metadata) THEN json(t.metadata) ELSE t.metadata END) FROM semantic_memory t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.id, json_object('id', t.id, 'name', t.name, 'description', t.description, 'pattern', t.pattern, 'success_rate', t.success_rate, 'use_count', t.use_count, 'tags', CASE WHEN json_valid(t.tags) THEN json(t.tags) ELSE t.tags END, 'disabled', t.disabled, 'created_at', t.created_at, 'updated_at', t.updated_at, 'user_id', t.user_id, 'session_id', t.session_id, 'metadata', CASE WHEN json_valid(t.metadata) THEN json(t.metadata) ELSE t.metadata END) FROM procedural_memory t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.id, json_object('id', t.id, 'session_id', t.session_id, 'messages', CASE WHEN json_valid(t.messages) THEN json(t.messages) ELSE t.messages END, 'summary', t.summary, 'key_decisions', CASE WHEN json_valid(t.key_decisions) THEN json(t.key_decisions) ELSE t.key_decisions END, 'task_ids', CASE WHEN json_valid(t.task_ids) THEN json(t.task_ids) ELSE t.task_ids END, 'started_at', t.started_at, 'ended_at', t.ended_at, 'total_cost', t.total_cost, 'total_tokens', t.total_tokens, 'created_at', t.created_at) FROM session_snapshots t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.id, json_object('id', t.id, 'source', t.source, 'heading', t.heading, 'chunk', t.chunk, 'title', t.title, 'tags', CASE WHEN json_valid(t.tags) THEN json(t.tags) ELSE t.tags END, 'content', t.content, 'sources', CASE WHEN json_valid(t.sources) THEN json(t.sources) ELSE t.sources END, 'created_at', t.created_at, 'updated_at', t.updated_at) FROM document_chunks t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.id, json_object('id', t.id, 'subject', t.subject, 'predicate', t.predicate, 'object', t.object, 'subject_key', t.subject_key, 'predicate_key', t.predicate_key, 'object_key', t.object_key, 'valid_from', t.valid_from, 'valid_to', t.valid_to, 'created_at', t.created_at, 'updated_at', t.updated_at, 'expired_at', t.expired_at, 'strength', t.strength, 'sources', CASE WHEN json_valid(t.sources) THEN json(t.sources) ELSE t.sources END, 'metadata', CASE WHEN json_valid(t.metadata) THEN json(t.metadata) ELSE t.metadata END) FROM facts t
		WHERE t.agent_id = ?1 AND t.id IN (SELECT value FROM json_each(?2))
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.memory_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.memory_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'semantic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t2.memory_type = 'episodic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t2.memory_type = 'procedural' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0))) OR (t.memory_type = 'episodic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0))) OR (t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0))) OR (t.memory_type = 'episodic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0))) OR (t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL)) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL)) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND NOT coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0)) OR (t.memory_type = 'episodic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0)) OR (t.memory_type = 'procedural' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0)) OR (t.memory_type = 'episodic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0)) OR (t.memory_type = 'procedural' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0))) ORDER BY t.pk
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND ((json_type(t.metadata, ?6) IS NOT NULL))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND ((json_type(t.metadata, ?6) IS NOT NULL))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))), t.valid_from <= ?6 AND (t.valid_to IS NULL OR t.valid_to > ?6) FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?7) IN ('integer', 'real') AND (t.metadata ->> ?8) < ?9, 0))), t.valid_from <= ?6 AND (t.valid_to IS NULL OR t.valid_to > ?6) FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

UPDATE temp.history_ctx SET op = ?, reason = ?
;

UPDATE temp.history_ctx SET op = NULL, actor = ?, reason = ?, at = ?
;

WITH RECURSIVE walk(k, d) AS (
			SELECT ?4, 0
			UNION
			SELECT e.object_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_out ON e.agent_id = ?1 AND e.subject_key = w.k
				WHERE w.d < ?5 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3)
			UNION
			SELECT e.subject_key, w.d + 1 FROM walk w CROSS JOIN facts e INDEXED BY facts_in ON e.agent_id = ?1 AND e.object_key = w.k
				WHERE w.d < ?5 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3)
			LIMIT ?6),
		near(k, d) AS (SELECT k, min(d) AS d FROM walk GROUP BY k ORDER BY d, k LIMIT ?7)
		SELECT k, coalesce((SELECT l.subject FROM facts l INDEXED BY facts_out WHERE l.agent_id = ?1 AND l.subject_key = k
			ORDER BY l.object_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1),
		(SELECT l.object FROM facts l INDEXED BY facts_in WHERE l.agent_id = ?1 AND l.object_key = k
			ORDER BY l.subject_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1), k), d FROM near ORDER BY d, k
;

