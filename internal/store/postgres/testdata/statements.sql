
			SELECT source_type, source_id, target_type, target_id, link_type, strength, created_at FROM zettel_links WHERE agent_id = ?1
				AND source_type IN ('semantic', 'episodic', 'procedural', 'fact', 'document') AND source_id = ?2
			UNION
			SELECT source_type, source_id, target_type, target_id, link_type, strength, created_at FROM zettel_links INDEXED BY links_by_target WHERE agent_id = ?1
				AND target_type IN ('semantic', 'episodic', 'procedural', 'fact', 'document') AND target_id = ?2
			ORDER BY strength DESC, created_at, source_id, target_id, link_type
;


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
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND (e.session_id = ?5 AND e.session_id <> '')
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
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND (e.user_id = ?5 AND e.user_id <> '' AND e.session_id = ?6 AND e.session_id <> '')
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
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND (e.user_id = ?5 AND e.user_id <> '')
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
	WHERE e.created_at >= ?3 AND e.created_at < ?4 AND 1 /*scope*/
;

DELETE FROM "archive" WHERE agent_id = ?
;

DELETE FROM "document_chunks" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "episodic_log" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "extraction_rules" WHERE agent_id = ?
;

DELETE FROM "fact_aliases" WHERE agent_id = ?
;

DELETE FROM "fact_predicates" WHERE agent_id = ?
;

DELETE FROM "facts" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "history" WHERE agent_id = ?
;

DELETE FROM "markdown_files" WHERE agent_id = ?
;

DELETE FROM "markdown_lines" WHERE agent_id = ?
;

DELETE FROM "procedural_memory" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "semantic_memory" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "session_snapshots" WHERE agent_id = ? RETURNING pk, agent_id, id
;

DELETE FROM "text_stats" WHERE agent_id = ?
;

DELETE FROM "vector_pending" WHERE agent_id = ?
;

DELETE FROM "zettel_links" WHERE agent_id = ?
;

DELETE FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ?
;

DELETE FROM archive WHERE agent_id = ?1 AND 1 RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND archived_at < ?2 RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND id = ?2 AND memory_type = 'episodic' RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND id = ?2 AND memory_type = 'procedural' RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND id = ?2 AND memory_type = 'semantic' RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND id = ?2 AND memory_type = 'snapshot' RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND id = ?2 RETURNING memory_type
;

DELETE FROM archive WHERE agent_id = ?1 AND memory_type IN ('semantic', 'episodic', 'procedural') AND (row ->> '$.user_id') = ?2 RETURNING memory_type
;

DELETE FROM document_chunks WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM document_chunks WHERE agent_id = ?2 AND pk IN (SELECT CAST(value ->> '$.pk' AS INTEGER) FROM json_each(?1)) RETURNING pk, agent_id, id
;

DELETE FROM embedding_cache WHERE hash IN (SELECT unhex(value) FROM json_each(?)) AND memory_pk IS NULL
;

DELETE FROM embedding_cache WHERE model <> ? OR length(vector) <> ?
;

DELETE FROM embedding_cache WHERE pk IN (SELECT CAST(value AS INTEGER) FROM json_each(?))
;

DELETE FROM episodic_log WHERE agent_id = ? AND created_at < ? RETURNING pk, agent_id, id
;

DELETE FROM episodic_log WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM episodic_log WHERE agent_id = ? AND user_id = ? AND user_id <> '' RETURNING pk, agent_id, id
;

DELETE FROM episodic_log WHERE agent_id = ?2 AND pk IN (SELECT CAST(value ->> '$.pk' AS INTEGER) FROM json_each(?1)) RETURNING pk, agent_id, id
;

DELETE FROM extraction_rules WHERE agent_id = ? AND name = ?
;

DELETE FROM facts WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM history WHERE agent_id = ? AND at < ?
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND memory_type = ? AND pk > ?
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ? AND memory_type = 'episodic' RETURNING memory_type
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ? AND memory_type = 'procedural' RETURNING memory_type
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ? AND memory_type = 'semantic' RETURNING memory_type
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ? AND memory_type = 'snapshot' RETURNING memory_type
;

DELETE FROM history WHERE agent_id = ? AND id = ? AND op IS DISTINCT FROM ? RETURNING memory_type
;

DELETE FROM history WHERE pk IN (SELECT h.pk FROM (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j) p JOIN history h ON h.agent_id = ?1 AND h.id = p.i AND h.memory_type = p.t)
;

DELETE FROM markdown_lines WHERE agent_id = ?
;

DELETE FROM markdown_lines WHERE agent_id = ? AND id = ?
;

DELETE FROM markdown_lines WHERE agent_id = ?1 AND id IN (SELECT i FROM (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j))
;

DELETE FROM meta WHERE key = ?
;

DELETE FROM meta WHERE key IN (SELECT value FROM json_each(?))
;

DELETE FROM meta WHERE substr(key, length(key) - length(CAST(?1 AS TEXT))) = ':' || ?1
;

DELETE FROM procedural_memory WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM procedural_memory WHERE agent_id = ? AND user_id = ? AND user_id <> '' RETURNING pk, agent_id, id
;

DELETE FROM procedural_memory WHERE agent_id = ?2 AND pk IN (SELECT CAST(value ->> '$.pk' AS INTEGER) FROM json_each(?1)) RETURNING pk, agent_id, id
;

DELETE FROM semantic_memory WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM semantic_memory WHERE agent_id = ? AND user_id = ? AND user_id <> '' RETURNING pk, agent_id, id
;

DELETE FROM semantic_memory WHERE agent_id = ?2 AND pk IN (SELECT CAST(value ->> '$.pk' AS INTEGER) FROM json_each(?1)) RETURNING pk, agent_id, id
;

DELETE FROM session_snapshots WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id
;

DELETE FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2 AND pk NOT IN (
		SELECT pk FROM session_snapshots WHERE agent_id = ?1 AND session_id = ?2
		ORDER BY ended_at DESC, pk DESC LIMIT ?3) RETURNING pk, agent_id, id
;

DELETE FROM temp.changes RETURNING kind, pk, agent_id, id
;

DELETE FROM vec_document WHERE rowid = ?
;

DELETE FROM vec_episodic WHERE rowid = ?
;

DELETE FROM vec_procedural WHERE rowid = ?
;

DELETE FROM vec_semantic WHERE rowid = ?
;

DELETE FROM vector_pending WHERE agent_id = ? AND memory_type = 'document'
				AND pk NOT IN (SELECT pk FROM document_chunks)
;

DELETE FROM vector_pending WHERE agent_id = ? AND memory_type = 'episodic'
				AND pk NOT IN (SELECT pk FROM episodic_log)
;

DELETE FROM vector_pending WHERE agent_id = ? AND memory_type = 'procedural'
				AND pk NOT IN (SELECT pk FROM procedural_memory)
;

DELETE FROM vector_pending WHERE agent_id = ? AND memory_type = 'semantic'
				AND pk NOT IN (SELECT pk FROM semantic_memory)
;

DELETE FROM vector_pending WHERE memory_type = ? AND pk = ?
;

DELETE FROM zettel_links WHERE agent_id = ? AND source_id = ? AND target_id = ?
			AND link_type = ? AND source_type IN ('semantic', 'episodic', 'procedural', 'fact', 'document')
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_id = ?2 AND source_type = 'episodic') OR (target_id = ?2 AND target_type = 'episodic'))
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_id = ?2 AND source_type = 'procedural') OR (target_id = ?2 AND target_type = 'procedural'))
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_id = ?2 AND source_type = 'semantic') OR (target_id = ?2 AND target_type = 'semantic'))
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_id = ?2 AND source_type = 'snapshot') OR (target_id = ?2 AND target_type = 'snapshot'))
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND ((source_type, source_id) IN (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j) OR (target_type, target_id) IN (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j))
;

DELETE FROM zettel_links WHERE agent_id = ?1 AND (source_id = ?2 OR target_id = ?2)
;

DROP TABLE vec_document
;

DROP TABLE vec_episodic
;

DROP TABLE vec_procedural
;

DROP TABLE vec_semantic
;

DROP TRIGGER IF EXISTS vec_document_ad
;

DROP TRIGGER IF EXISTS vec_document_ai
;

DROP TRIGGER IF EXISTS vec_document_au
;

DROP TRIGGER IF EXISTS vec_episodic_ad
;

DROP TRIGGER IF EXISTS vec_episodic_ai
;

DROP TRIGGER IF EXISTS vec_episodic_au
;

DROP TRIGGER IF EXISTS vec_procedural_ad
;

DROP TRIGGER IF EXISTS vec_procedural_ai
;

DROP TRIGGER IF EXISTS vec_procedural_au
;

DROP TRIGGER IF EXISTS vec_semantic_ad
;

DROP TRIGGER IF EXISTS vec_semantic_ai
;

DROP TRIGGER IF EXISTS vec_semantic_au
;

INSERT INTO archive (agent_id, id, row, links, reason, merged_into, archived_at, memory_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
;

INSERT INTO archive (agent_id, memory_type, id, row, links, reason, merged_into, archived_at)
		SELECT r.agent_id, ?3, r.id, json_object('id', r.id, 'content', r.content, 'event_type', r.event_type, 'task_id', r.task_id, 'session_id', r.session_id, 'cost', r.cost, 'duration_ns', r.duration_ns, 'metadata', r.metadata, 'created_at', r.created_at, 'resonance', r.resonance, 'retrievals', r.retrievals, 'terms', hex(r.terms), 'ntok', r.ntok, 'user_id', r.user_id),
			(SELECT json_group_array(json_object('source_type', l.source_type, 'source_id', l.source_id,
				'target_type', l.target_type, 'target_id', l.target_id, 'link_type', l.link_type,
				'strength', l.strength, 'created_at', l.created_at))
			FROM zettel_links l WHERE l.agent_id = r.agent_id
				AND ((l.source_type = ?3 AND l.source_id = r.id) OR (l.target_type = ?3 AND l.target_id = r.id))),
			?4, j.value ->> '$.into', ?5
		FROM json_each(?1) j CROSS JOIN episodic_log r ON r.pk = CAST(j.value ->> '$.pk' AS INTEGER)
		WHERE r.agent_id = ?2
		ON CONFLICT (agent_id, memory_type, id) DO UPDATE SET row = excluded.row, links = excluded.links,
			reason = excluded.reason, merged_into = excluded.merged_into, archived_at = excluded.archived_at
;

INSERT INTO archive (agent_id, memory_type, id, row, links, reason, merged_into, archived_at)
		SELECT r.agent_id, ?3, r.id, json_object('id', r.id, 'content', r.content, 'summary', r.summary, 'importance', r.importance, 'verified', r.verified, 'tags', r.tags, 'source', r.source, 'content_hash', hex(r.content_hash), 'created_at', r.created_at, 'updated_at', r.updated_at, 'access_count', r.access_count, 'last_accessed_at', r.last_accessed_at, 'resonance', r.resonance, 'merged_from', r.merged_from, 'promoted_at_count', r.promoted_at_count, 'retrievals', r.retrievals, 'terms', hex(r.terms), 'ntok', r.ntok, 'user_id', r.user_id, 'session_id', r.session_id, 'metadata', r.metadata),
			(SELECT json_group_array(json_object('source_type', l.source_type, 'source_id', l.source_id,
				'target_type', l.target_type, 'target_id', l.target_id, 'link_type', l.link_type,
				'strength', l.strength, 'created_at', l.created_at))
			FROM zettel_links l WHERE l.agent_id = r.agent_id
				AND ((l.source_type = ?3 AND l.source_id = r.id) OR (l.target_type = ?3 AND l.target_id = r.id))),
			?4, j.value ->> '$.into', ?5
		FROM json_each(?1) j CROSS JOIN semantic_memory r ON r.pk = CAST(j.value ->> '$.pk' AS INTEGER)
		WHERE r.agent_id = ?2
		ON CONFLICT (agent_id, memory_type, id) DO UPDATE SET row = excluded.row, links = excluded.links,
			reason = excluded.reason, merged_into = excluded.merged_into, archived_at = excluded.archived_at
;

INSERT INTO archive (agent_id, memory_type, id, row, links, reason, merged_into, archived_at)
		SELECT r.agent_id, ?3, r.id, json_object('id', r.id, 'name', r.name, 'description', r.description, 'pattern', r.pattern, 'success_rate', r.success_rate, 'use_count', r.use_count, 'tags', r.tags, 'disabled', r.disabled, 'created_at', r.created_at, 'updated_at', r.updated_at, 'resonance', r.resonance, 'retrievals', r.retrievals, 'terms', hex(r.terms), 'ntok', r.ntok, 'user_id', r.user_id, 'session_id', r.session_id, 'metadata', r.metadata),
			(SELECT json_group_array(json_object('source_type', l.source_type, 'source_id', l.source_id,
				'target_type', l.target_type, 'target_id', l.target_id, 'link_type', l.link_type,
				'strength', l.strength, 'created_at', l.created_at))
			FROM zettel_links l WHERE l.agent_id = r.agent_id
				AND ((l.source_type = ?3 AND l.source_id = r.id) OR (l.target_type = ?3 AND l.target_id = r.id))),
			?4, j.value ->> '$.into', ?5
		FROM json_each(?1) j CROSS JOIN procedural_memory r ON r.pk = CAST(j.value ->> '$.pk' AS INTEGER)
		WHERE r.agent_id = ?2
		ON CONFLICT (agent_id, memory_type, id) DO UPDATE SET row = excluded.row, links = excluded.links,
			reason = excluded.reason, merged_into = excluded.merged_into, archived_at = excluded.archived_at
;

INSERT INTO archive (agent_id, memory_type, id, row, links, reason, merged_into, archived_at)
		SELECT r.agent_id, ?3, r.id, json_object('id', r.id, 'source', r.source, 'heading', r.heading, 'chunk', r.chunk, 'title', r.title, 'tags', r.tags, 'content', r.content, 'content_hash', hex(r.content_hash), 'sources', r.sources, 'created_at', r.created_at, 'updated_at', r.updated_at, 'retrievals', r.retrievals, 'terms', hex(r.terms), 'ntok', r.ntok),
			(SELECT json_group_array(json_object('source_type', l.source_type, 'source_id', l.source_id,
				'target_type', l.target_type, 'target_id', l.target_id, 'link_type', l.link_type,
				'strength', l.strength, 'created_at', l.created_at))
			FROM zettel_links l WHERE l.agent_id = r.agent_id
				AND ((l.source_type = ?3 AND l.source_id = r.id) OR (l.target_type = ?3 AND l.target_id = r.id))),
			?4, j.value ->> '$.into', ?5
		FROM json_each(?1) j CROSS JOIN document_chunks r ON r.pk = CAST(j.value ->> '$.pk' AS INTEGER)
		WHERE r.agent_id = ?2
		ON CONFLICT (agent_id, memory_type, id) DO UPDATE SET row = excluded.row, links = excluded.links,
			reason = excluded.reason, merged_into = excluded.merged_into, archived_at = excluded.archived_at
;

INSERT INTO document_chunks (agent_id, id, source, heading, chunk, title, tags, content, content_hash, sources, created_at, updated_at, retrievals, terms, ntok)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.source'), json_extract(row, '$.heading'), json_extract(row, '$.chunk'), json_extract(row, '$.title'), json_extract(row, '$.tags'), json_extract(row, '$.content'), unhex(nullif(json_extract(row, '$.content_hash'), '')), json_extract(row, '$.sources'), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0) FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

INSERT INTO document_chunks (agent_id, id, source, heading, chunk, title, tags, content, content_hash, sources, created_at, updated_at, retrievals, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, content
;

INSERT INTO document_chunks (id, agent_id, source, heading, chunk, title, tags, content, content_hash,
		sources, created_at, updated_at, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?) RETURNING pk
;

INSERT INTO document_fts(document_fts) VALUES ('optimize')
;

INSERT INTO embedding_cache (model, hash, vector, used_at, memory_type, memory_pk)
			SELECT ?1, unhex(j.value ->> '$.h'), x'', ?2, j.value ->> '$.t', CAST(j.value ->> '$.p' AS INTEGER) FROM json_each(?3) j WHERE true
			ON CONFLICT (model, hash) DO NOTHING
;

INSERT INTO embedding_cache (model, hash, vector, used_at, memory_type, memory_pk)
			VALUES (?1, ?2, x'', ?3, ?4, ?5)
			ON CONFLICT (model, hash) DO UPDATE SET vector = x'', used_at = ?3, memory_type = ?4, memory_pk = ?5
			WHERE embedding_cache.memory_pk IS NULL
;

INSERT INTO episodic_fts(episodic_fts) VALUES ('optimize')
;

INSERT INTO episodic_log (agent_id, id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, resonance, retrievals, terms, ntok, user_id)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.content'), json_extract(row, '$.event_type'), json_extract(row, '$.task_id'), coalesce(json_extract(row, '$.session_id'), ''), json_extract(row, '$.cost'), json_extract(row, '$.duration_ns'), coalesce(json_extract(row, '$.metadata'), '{}'), json_extract(row, '$.created_at'), json_extract(row, '$.resonance'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), '') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

INSERT INTO episodic_log (agent_id, id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, resonance, retrievals, terms, ntok, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, content
;

INSERT INTO episodic_log (id, agent_id, content, event_type, task_id, session_id,
		cost, duration_ns, metadata, created_at, resonance, terms, ntok, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk
;

INSERT INTO episodic_log (id, agent_id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, resonance, terms, ntok, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, pk
;

INSERT INTO extraction_rules (agent_id, name, pattern, memory_type, importance, tags, active, created_at,
			subject, predicate, object)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
;

INSERT INTO extraction_rules (agent_id, name, pattern, memory_type, importance, tags, active, created_at, subject, predicate, object) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
;

INSERT INTO fact_aliases (agent_id, alias_key, entity_key, alias, created_at) VALUES (?, ?, ?, ?, ?)
;

INSERT INTO fact_aliases (agent_id, alias_key, entity_key, alias, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (agent_id, alias_key) DO UPDATE SET entity_key = excluded.entity_key
;

INSERT INTO fact_fts(fact_fts) VALUES ('optimize')
;

INSERT INTO fact_predicates (agent_id, predicate_key, model, embedding) VALUES (?, ?, ?, ?)
		ON CONFLICT (agent_id, predicate_key) DO UPDATE SET model = excluded.model, embedding = excluded.embedding
;

INSERT INTO facts (agent_id, id, subject, predicate, object, subject_key, predicate_key, object_key, valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, retrievals, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, subject, predicate, object
;

INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		SELECT ?3, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			?4, ?5, ?6, ?6, ?7, strength, sources, metadata, terms, ntok
		FROM facts WHERE agent_id = ?1 AND pk = ?2 RETURNING pk, agent_id, id, subject, predicate, object
;

INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals
;

INSERT INTO history (agent_id, id, op, before, after, actor, reason, at, memory_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
;

INSERT INTO history (agent_id, memory_type, id, op, actor, reason, at)
			SELECT ?1, p.t, p.i, ?3, c.actor, c.reason, c.at FROM (SELECT j.value ->> '$.t' AS t, j.value ->> '$.i' AS i FROM json_each(?2) j) p, temp.history_ctx c
;

INSERT INTO markdown_files (agent_id, path, hash, written_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent_id) DO UPDATE SET path = excluded.path, hash = excluded.hash, written_at = excluded.written_at
;

INSERT INTO markdown_lines (agent_id, kind, id, line)
			SELECT ?1, j.value ->> '$.k', j.value ->> '$.i', j.value ->> '$.l' FROM json_each(?2) j
			WHERE true ON CONFLICT DO NOTHING
;

INSERT INTO meta (key, value) VALUES (?, '') ON CONFLICT (key) DO NOTHING
;

INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
;

INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING
;

INSERT INTO meta (key, value) VALUES (?1, ?2)
		ON CONFLICT (key) DO UPDATE SET value = CAST(meta.value AS INTEGER) + CAST(?2 AS INTEGER)
;

INSERT INTO procedural_fts(procedural_fts) VALUES ('optimize')
;

INSERT INTO procedural_memory (agent_id, id, name, description, pattern, success_rate, use_count, tags, disabled, created_at, updated_at, resonance, retrievals, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, name, description
;

INSERT INTO procedural_memory (agent_id, id, name, description, pattern, success_rate, use_count, tags, disabled, created_at, updated_at, resonance, retrievals, terms, ntok, user_id, session_id, metadata)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.name'), json_extract(row, '$.description'), json_extract(row, '$.pattern'), json_extract(row, '$.success_rate'), json_extract(row, '$.use_count'), json_extract(row, '$.tags'), json_extract(row, '$.disabled'), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), json_extract(row, '$.resonance'), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), ''), coalesce(json_extract(row, '$.session_id'), ''), coalesce(json_extract(row, '$.metadata'), '{}') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, name, description
;

INSERT INTO procedural_memory (agent_id, id, name, description, pattern, success_rate, use_count, tags, disabled, created_at, updated_at, resonance, retrievals, terms, ntok, user_id, session_id, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, name, description
;

INSERT INTO procedural_memory (id, agent_id, name, description, pattern,
		success_rate, use_count, tags, disabled, created_at, updated_at, resonance, terms, ntok,
		user_id, session_id, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk
;

INSERT INTO semantic_fts(semantic_fts) VALUES ('optimize')
;

INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, promoted_at_count, retrievals, terms, ntok) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, content
;

INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, promoted_at_count, retrievals, terms, ntok, user_id, session_id, metadata)
		SELECT agent_id, json_extract(row, '$.id'), json_extract(row, '$.content'), json_extract(row, '$.summary'), json_extract(row, '$.importance'), json_extract(row, '$.verified'), json_extract(row, '$.tags'), json_extract(row, '$.source'), unhex(nullif(json_extract(row, '$.content_hash'), '')), json_extract(row, '$.created_at'), json_extract(row, '$.updated_at'), json_extract(row, '$.access_count'), json_extract(row, '$.last_accessed_at'), json_extract(row, '$.resonance'), json_extract(row, '$.merged_from'), coalesce(json_extract(row, '$.promoted_at_count'), 0), coalesce(json_extract(row, '$.retrievals'), 0), unhex(nullif(json_extract(row, '$.terms'), '')), coalesce(json_extract(row, '$.ntok'), 0), coalesce(json_extract(row, '$.user_id'), ''), coalesce(json_extract(row, '$.session_id'), ''), coalesce(json_extract(row, '$.metadata'), '{}') FROM archive WHERE agent_id = ? AND memory_type = ? AND id = ? RETURNING pk, agent_id, id, content
;

INSERT INTO semantic_memory (agent_id, id, content, summary_own, importance, verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, promoted_at_count, retrievals, terms, ntok, user_id, session_id, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, content
;

INSERT INTO semantic_memory (id, agent_id, content, summary_own, importance,
		verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance,
		terms, ntok, user_id, session_id, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk
;

INSERT INTO semantic_memory (id, agent_id, content, summary_own, importance, verified, tags, source, content_hash, created_at, updated_at, access_count, last_accessed_at, resonance, terms, ntok, user_id, session_id, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, pk
;

INSERT INTO session_snapshots (agent_id, id, session_id, messages, summary, key_decisions, task_ids, started_at, ended_at, total_cost, total_tokens, created_at, retrievals) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, summary, key_decisions, messages
;

INSERT INTO session_snapshots (id, agent_id, session_id, messages, summary,
		key_decisions, task_ids, started_at, ended_at, total_cost, total_tokens, created_at, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, agent_id, id, summary, key_decisions, messages
;

INSERT INTO snapshot_fts(snapshot_fts) VALUES ('optimize')
;

INSERT INTO vec_document (rowid, embedding) VALUES (?, ?)
;

INSERT INTO vec_episodic (rowid, embedding) VALUES (?, ?)
;

INSERT INTO vec_procedural (rowid, embedding) VALUES (?, ?)
;

INSERT INTO vec_semantic (rowid, embedding) VALUES (?, ?)
;

INSERT INTO vector_pending (memory_type, pk, agent_id)
			SELECT 'document', pk, agent_id FROM document_chunks WHERE ?1 = '' OR agent_id = ?1 ON CONFLICT DO NOTHING
;

INSERT INTO vector_pending (memory_type, pk, agent_id)
			SELECT 'episodic', pk, agent_id FROM episodic_log WHERE ?1 = '' OR agent_id = ?1 ON CONFLICT DO NOTHING
;

INSERT INTO vector_pending (memory_type, pk, agent_id)
			SELECT 'procedural', pk, agent_id FROM procedural_memory WHERE ?1 = '' OR agent_id = ?1 ON CONFLICT DO NOTHING
;

INSERT INTO vector_pending (memory_type, pk, agent_id)
			SELECT 'semantic', pk, agent_id FROM semantic_memory WHERE ?1 = '' OR agent_id = ?1 ON CONFLICT DO NOTHING
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
			SELECT ?1, 'semantic', v.column1, 'semantic', v.column2, ?2, v.column3, ?3
			FROM (VALUES (?, ?, CAST(? AS REAL))) v
			WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = v.column2)
			ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		SELECT ?1, 'semantic', ?2, 'semantic', ?3, ?4, ?5, ?6
		WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = ?3)
		ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		SELECT a.agent_id, l.value ->> 'source_type', l.value ->> 'source_id', l.value ->> 'target_type',
			l.value ->> 'target_id', l.value ->> 'link_type', CAST(l.value ->> 'strength' AS REAL), CAST(l.value ->> 'created_at' AS INTEGER)
		FROM archive a, json_each(a.links) l
		WHERE a.agent_id = ?1 AND a.memory_type = ?2 AND a.id = ?3
			AND CASE l.value ->> 'source_type' WHEN 'semantic' THEN EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = a.agent_id AND id = l.value ->> 'source_id') WHEN 'episodic' THEN EXISTS (SELECT 1 FROM episodic_log WHERE agent_id = a.agent_id AND id = l.value ->> 'source_id') WHEN 'procedural' THEN EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id = a.agent_id AND id = l.value ->> 'source_id') WHEN 'fact' THEN EXISTS (SELECT 1 FROM facts WHERE agent_id = a.agent_id AND id = l.value ->> 'source_id') WHEN 'document' THEN EXISTS (SELECT 1 FROM document_chunks WHERE agent_id = a.agent_id AND id = l.value ->> 'source_id') ELSE false END
			AND CASE l.value ->> 'target_type' WHEN 'semantic' THEN EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = a.agent_id AND id = l.value ->> 'target_id') WHEN 'episodic' THEN EXISTS (SELECT 1 FROM episodic_log WHERE agent_id = a.agent_id AND id = l.value ->> 'target_id') WHEN 'procedural' THEN EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id = a.agent_id AND id = l.value ->> 'target_id') WHEN 'fact' THEN EXISTS (SELECT 1 FROM facts WHERE agent_id = a.agent_id AND id = l.value ->> 'target_id') WHEN 'document' THEN EXISTS (SELECT 1 FROM document_chunks WHERE agent_id = a.agent_id AND id = l.value ->> 'target_id') ELSE false END
		ON CONFLICT DO NOTHING
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at)
		VALUES (?, 'episodic', ?, 'semantic', ?, ?, 1, ?)
		ON CONFLICT DO NOTHING
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent_id, source_type, source_id, target_type, target_id, link_type) DO UPDATE SET strength = excluded.strength
;

INSERT INTO zettel_links (agent_id, source_type, source_id, target_type, target_id, link_type, strength, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING
;

PRAGMA cache_size = -2048
;

PRAGMA cache_size = -65536
;

PRAGMA user_version
;

SELECT
			(SELECT count(*) FROM vec_document v WHERE NOT EXISTS (SELECT 1 FROM document_chunks b WHERE b.pk = v.rowid)),
			(SELECT count(*) FROM document_chunks b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.memory_type = ?1 AND p.pk = b.pk)
				AND b.pk NOT IN (SELECT rowid FROM vec_document)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = ?1
				AND NOT EXISTS (SELECT 1 FROM document_chunks b WHERE b.pk = p.pk))
;

SELECT
			(SELECT count(*) FROM vec_episodic v WHERE NOT EXISTS (SELECT 1 FROM episodic_log b WHERE b.pk = v.rowid)),
			(SELECT count(*) FROM episodic_log b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.memory_type = ?1 AND p.pk = b.pk)
				AND b.pk NOT IN (SELECT rowid FROM vec_episodic)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = ?1
				AND NOT EXISTS (SELECT 1 FROM episodic_log b WHERE b.pk = p.pk))
;

SELECT
			(SELECT count(*) FROM vec_procedural v WHERE NOT EXISTS (SELECT 1 FROM procedural_memory b WHERE b.pk = v.rowid)),
			(SELECT count(*) FROM procedural_memory b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.memory_type = ?1 AND p.pk = b.pk)
				AND b.pk NOT IN (SELECT rowid FROM vec_procedural)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = ?1
				AND NOT EXISTS (SELECT 1 FROM procedural_memory b WHERE b.pk = p.pk))
;

SELECT
			(SELECT count(*) FROM vec_semantic v WHERE NOT EXISTS (SELECT 1 FROM semantic_memory b WHERE b.pk = v.rowid)),
			(SELECT count(*) FROM semantic_memory b WHERE NOT EXISTS
				(SELECT 1 FROM vector_pending p WHERE p.memory_type = ?1 AND p.pk = b.pk)
				AND b.pk NOT IN (SELECT rowid FROM vec_semantic)),
			(SELECT count(*) FROM vector_pending p WHERE p.memory_type = ?1
				AND NOT EXISTS (SELECT 1 FROM semantic_memory b WHERE b.pk = p.pk))
;

SELECT
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NOT NULL AND model <> ?1),
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NOT NULL AND memory_type NOT IN (SELECT value FROM json_each(?3))),
		(SELECT count(*) FROM embedding_cache WHERE memory_pk IS NULL AND model = ?1 AND length(vector) <> 4 * ?2)
;

SELECT '', t.alias_key, t.entity_key, t.alias, t.created_at FROM fact_aliases t WHERE t.agent_id = ? AND 1 ORDER BY t.alias_key
;

SELECT '', t.name, t.pattern, t.memory_type, t.importance, t.tags, t.active, t.created_at, t.subject, t.predicate, t.object FROM extraction_rules t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> ''))) AND ((t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> ''))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
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

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.session_id = ? AND x.session_id <> '')) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.session_id = ? AND x.session_id <> '')) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.session_id = ? AND x.session_id <> ''))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.session_id = ? AND x.session_id <> '')) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.session_id = ? AND x.session_id <> '')) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.session_id = ? AND x.session_id <> ''))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?))))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?)))))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?))))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?)))))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND NOT (json_type(x.metadata, ?) IS NOT NULL)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?)) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?)) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?)) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?)) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at < ?))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?)) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?)) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?)) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?)) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.created_at >= ?))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> ''))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> ''))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '')) OR (t.source_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> '')) OR (t.source_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> ''))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '')) OR (t.target_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> '')) OR (t.target_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> ''))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND ((t.source_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.source_id AND x.user_id = ? AND x.user_id <> ''))) AND ((t.target_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.target_id AND x.user_id = ? AND x.user_id <> ''))) ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT '', t.source_type, t.source_id, t.target_type, t.target_id, t.link_type, t.strength, t.created_at FROM zettel_links t WHERE t.agent_id = ? AND 1 ORDER BY t.source_type, t.source_id, t.target_type, t.target_id, t.link_type
;

SELECT 'document', t.id, t.source, t.heading, t.chunk, t.title, t.tags, t.content, t.sources, t.created_at, t.updated_at, t.retrievals FROM document_chunks t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'document', t.id, v.embedding FROM document_chunks t JOIN vec_document v ON v.rowid = t.pk WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at < ? ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at >= ? ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'episodic', t.id, t.content, t.event_type, t.task_id, t.session_id, t.cost, t.duration_ns, t.metadata, t.created_at, t.resonance, t.retrievals, t.user_id FROM episodic_log t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'episodic', t.id, v.embedding FROM episodic_log t JOIN vec_episodic v ON v.rowid = t.pk WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'episodic', t.id, v.embedding FROM episodic_log t JOIN vec_episodic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'episodic', t.id, v.embedding FROM episodic_log t JOIN vec_episodic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'episodic', t.id, v.embedding FROM episodic_log t JOIN vec_episodic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'fact', t.id, t.subject, t.predicate, t.object, t.subject_key, t.predicate_key, t.object_key, t.valid_from, t.valid_to, t.created_at, t.updated_at, t.expired_at, t.strength, t.sources, t.metadata, t.retrievals FROM facts t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
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

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at < ? ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at >= ? ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'procedural', t.id, t.name, t.description, t.pattern, t.success_rate, t.use_count, t.tags, t.disabled, t.created_at, t.updated_at, t.resonance, t.retrievals, t.user_id, t.session_id, t.metadata FROM procedural_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'procedural', t.id, v.embedding FROM procedural_memory t JOIN vec_procedural v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) OR coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) <= ?, 0)) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND (coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) > ?, 0) AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) < ?, 0)) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND NOT coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) = 'true', 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND coalesce(json_type(t.metadata, ?) IN ('integer', 'real') AND (t.metadata ->> ?) >= ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND NOT (json_type(t.metadata, ?) IS NOT NULL) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at < ? ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.created_at >= ? ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'semantic', t.id, t.content, t.summary, t.importance, t.verified, t.tags, t.source, t.created_at, t.updated_at, t.access_count, t.last_accessed_at, t.resonance, t.merged_from, t.promoted_at_count, t.retrievals, t.user_id, t.session_id, t.metadata FROM semantic_memory t WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?) = 'text' AND (t.metadata ->> ?) = ?, 0) ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT 'semantic', t.id, v.embedding FROM semantic_memory t JOIN vec_semantic v ON v.rowid = t.pk WHERE t.agent_id = ? AND t.user_id = ? AND t.user_id <> '' ORDER BY t.pk
;

SELECT 'snapshot', t.id, t.session_id, t.messages, t.summary, t.key_decisions, t.task_ids, t.started_at, t.ended_at, t.total_cost, t.total_tokens, t.created_at, t.retrievals FROM session_snapshots t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT 'snapshot', t.id, t.session_id, t.messages, t.summary, t.key_decisions, t.task_ids, t.started_at, t.ended_at, t.total_cost, t.total_tokens, t.created_at, t.retrievals FROM session_snapshots t WHERE t.agent_id = ? AND t.session_id = ? AND t.session_id <> '' ORDER BY t.pk
;

SELECT (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) LIMIT ?6))
		+ (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) LIMIT ?6)), (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND e.subject_key = ?5 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) LIMIT ?6))
		+ (SELECT count(*) FROM (SELECT 1 FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND e.object_key = ?5 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) LIMIT ?6))
;

SELECT (SELECT count(*) FROM semantic_memory WHERE agent_id = ?1),
			(SELECT count(*) FROM facts f WHERE agent_id = ?1 AND f.valid_from <= ?2 AND (f.valid_to IS NULL OR f.valid_to > ?2))
;

SELECT (SELECT count(*) FROM semantic_memory WHERE agent_id = ?1), (SELECT count(*) FROM episodic_log WHERE agent_id = ?1), (SELECT count(*) FROM procedural_memory WHERE agent_id = ?1), (SELECT count(*) FROM session_snapshots WHERE agent_id = ?1), (SELECT count(*) FROM facts WHERE agent_id = ?1), (SELECT count(*) FROM document_chunks WHERE agent_id = ?1), (SELECT count(*) FROM zettel_links WHERE agent_id = ?1), (SELECT count(*) FROM archive WHERE agent_id = ?1), (SELECT count(*) FROM vector_pending WHERE agent_id = ?1)
;

SELECT 0, t.pk, t.id, t.created_at, t.importance * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END, '', '' FROM semantic_memory t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?2
UNION ALL SELECT 1, t.pk, t.id, t.created_at, 0.5 * t.resonance, t.ntok, t.terms, t.session_id, t.user_id, t.session_id, CASE WHEN rtrim(t.content) LIKE '%?' THEN 1 ELSE 0 END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, '', '', '' FROM episodic_log t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?3
UNION ALL SELECT 2, t.pk, t.id, t.created_at, t.success_rate * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.name, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.description, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.pattern, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM procedural_memory t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?4
UNION ALL SELECT 3, t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.summary, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') ELSE '' END, '' FROM session_snapshots t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?5
UNION ALL SELECT 4, t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.subject, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.predicate, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.object, '') ELSE '' END, '' FROM facts t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?6
UNION ALL SELECT 5, t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.title, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.heading, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM document_chunks t NOT INDEXED WHERE t.agent_id = ?1 AND t.pk > ?7
;

SELECT CASE ?2 WHEN 'semantic' THEN EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = ?3) WHEN 'episodic' THEN EXISTS (SELECT 1 FROM episodic_log WHERE agent_id = ?1 AND id = ?3) WHEN 'procedural' THEN EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id = ?1 AND id = ?3) WHEN 'fact' THEN EXISTS (SELECT 1 FROM facts WHERE agent_id = ?1 AND id = ?3) WHEN 'document' THEN EXISTS (SELECT 1 FROM document_chunks WHERE agent_id = ?1 AND id = ?3) ELSE false END
;

SELECT DISTINCT memory_type, id FROM history WHERE agent_id = ?1 AND memory_type IN ('semantic', 'episodic', 'procedural')
		AND ((before ->> '$.user_id') = ?2 OR (after ->> '$.user_id') = ?2)
;

SELECT EXISTS (SELECT 1 FROM "archive" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "document_chunks" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "episodic_log" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "extraction_rules" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "fact_aliases" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "fact_predicates" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "facts" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "history" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "markdown_files" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "markdown_lines" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "procedural_memory" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "semantic_memory" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "session_snapshots" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "text_stats" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "vector_pending" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM "zettel_links" WHERE agent_id = ?)
;

SELECT EXISTS (SELECT 1 FROM document_chunks WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM document_chunks WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM document_chunks WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM document_chunks WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM episodic_log WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM episodic_log WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM episodic_log WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM episodic_log WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM facts INDEXED BY facts_out WHERE agent_id = ?1 AND subject_key = ?2)
		OR EXISTS (SELECT 1 FROM facts INDEXED BY facts_in WHERE agent_id = ?1 AND object_key = ?2)
;

SELECT EXISTS (SELECT 1 FROM facts WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM facts WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM facts WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM facts WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM meta WHERE substr(key, length(key) - length(CAST(?1 AS TEXT))) = ':' || ?1)
;

SELECT EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM procedural_memory WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM session_snapshots WHERE agent_id < ?1)
		OR EXISTS (SELECT 1 FROM session_snapshots WHERE agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM session_snapshots WHERE agent_id = ?1),
		EXISTS (SELECT 1 FROM session_snapshots WHERE agent_id < ?1 OR agent_id > ?1)
;

SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?)
;

SELECT alias_key, entity_key FROM fact_aliases WHERE agent_id = ?1 AND alias_key IN (?2, ?3)
;

SELECT c.hash, c.memory_pk IS NOT NULL,
			CASE WHEN c.memory_pk IS NULL THEN c.vector ELSE CASE c.memory_type WHEN 'semantic' THEN (SELECT embedding FROM vec_semantic WHERE rowid = c.memory_pk) WHEN 'episodic' THEN (SELECT embedding FROM vec_episodic WHERE rowid = c.memory_pk) WHEN 'procedural' THEN (SELECT embedding FROM vec_procedural WHERE rowid = c.memory_pk) WHEN 'document' THEN (SELECT embedding FROM vec_document WHERE rowid = c.memory_pk) END END
		FROM json_each(?2) j CROSS JOIN embedding_cache c ON c.model = ?1 AND c.hash = unhex(j.value)
;

SELECT c.hash, coalesce(t.content, '') FROM embedding_cache c
			LEFT JOIN document_chunks t ON t.pk = c.memory_pk WHERE c.memory_type = ?
;

SELECT c.hash, coalesce(t.content, '') FROM embedding_cache c
			LEFT JOIN episodic_log t ON t.pk = c.memory_pk WHERE c.memory_type = ?
;

SELECT c.hash, coalesce(t.content, '') FROM embedding_cache c
			LEFT JOIN semantic_memory t ON t.pk = c.memory_pk WHERE c.memory_type = ?
;

SELECT c.hash, coalesce(t.name || ': ' || t.description, '') FROM embedding_cache c
			LEFT JOIN procedural_memory t ON t.pk = c.memory_pk WHERE c.memory_type = ?
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM json_each(?) j CROSS JOIN vec_document_chunks c ON c.chunk_id = j.value CROSS JOIN vec_document_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM json_each(?) j CROSS JOIN vec_episodic_chunks c ON c.chunk_id = j.value CROSS JOIN vec_episodic_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM json_each(?) j CROSS JOIN vec_procedural_chunks c ON c.chunk_id = j.value CROSS JOIN vec_procedural_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM json_each(?) j CROSS JOIN vec_semantic_chunks c ON c.chunk_id = j.value CROSS JOIN vec_semantic_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM vec_document_chunks c CROSS JOIN vec_document_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM vec_episodic_chunks c CROSS JOIN vec_episodic_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM vec_missing_chunks c CROSS JOIN vec_missing_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM vec_procedural_chunks c CROSS JOIN vec_procedural_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT c.size, c.validity, c.rowids, v.vectors
		FROM vec_semantic_chunks c CROSS JOIN vec_semantic_vector_chunks00 v ON v.rowid = +c.chunk_id
;

SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)
;

SELECT coalesce((SELECT docs FROM text_stats WHERE agent_id = ?1), 0),
		coalesce((SELECT version FROM text_stats WHERE agent_id = ?1), -1),
		coalesce((SELECT ranks FROM text_stats WHERE agent_id = ?1), 0)
;

SELECT coalesce((SELECT entity_key FROM fact_aliases WHERE agent_id = ? AND alias_key = ?), ?)
;

SELECT coalesce((SELECT max(pk) FROM semantic_memory), 0), coalesce((SELECT max(pk) FROM episodic_log), 0), coalesce((SELECT max(pk) FROM procedural_memory), 0), coalesce((SELECT max(pk) FROM session_snapshots), 0), coalesce((SELECT max(pk) FROM facts), 0), coalesce((SELECT max(pk) FROM document_chunks), 0)
;

SELECT coalesce((SELECT value FROM meta WHERE key = ?), ''), coalesce((SELECT value FROM meta WHERE key = ?), '')
;

SELECT coalesce((SELECT version FROM text_stats WHERE agent_id = ?1), -1)
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND 1
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND archived_at < ?3
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'episodic'
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'procedural'
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'semantic'
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'snapshot'
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND memory_type IN ('semantic', 'episodic', 'procedural') AND (row ->> '$.user_id') = ?3
;

SELECT coalesce((row ->> '$.content'), '') FROM archive WHERE memory_type = ?
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND 1
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND archived_at < ?3
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'episodic'
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'procedural'
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'semantic'
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND id = ?3 AND memory_type = 'snapshot'
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE agent_id = ?1 AND memory_type = ?2 AND memory_type IN ('semantic', 'episodic', 'procedural') AND (row ->> '$.user_id') = ?3
;

SELECT coalesce((row ->> '$.name') || ': ' || (row ->> '$.description'), '') FROM archive WHERE memory_type = ?
;

SELECT coalesce(max(pk), 0) FROM document_chunks
;

SELECT coalesce(max(pk), 0) FROM episodic_log
;

SELECT coalesce(max(pk), 0) FROM facts
;

SELECT coalesce(max(pk), 0) FROM history
;

SELECT coalesce(max(pk), 0) FROM procedural_memory
;

SELECT coalesce(max(pk), 0) FROM semantic_memory
;

SELECT coalesce(max(pk), 0) FROM session_snapshots
;

SELECT coalesce(s.docs, 0), coalesce(s.tokens, 0), coalesce(s.version, -1), coalesce(s.ranks, 0),
			coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?2), 0)
		FROM (SELECT 1) LEFT JOIN text_stats s ON s.agent_id = ?1
;

SELECT count(*) FILTER (WHERE importance >= ?2), count(*) FILTER (WHERE last_accessed_at > ?3),
		min(last_accessed_at) FILTER (WHERE last_accessed_at > ?3) FROM semantic_memory WHERE +agent_id = ?1
;

SELECT count(*) FILTER (WHERE importance >= ?2), count(*) FILTER (WHERE last_accessed_at > ?3),
		min(last_accessed_at) FILTER (WHERE last_accessed_at > ?3) FROM semantic_memory WHERE agent_id = ?1
;

SELECT count(*) FROM (SELECT 1 FROM semantic_fts WHERE semantic_fts MATCH ?1 LIMIT ?2)
;

SELECT count(*) FROM (SELECT 1 FROM semantic_memory WHERE agent_id = ? LIMIT ?)
;

SELECT count(*) FROM document_chunks WHERE agent_id = ?
;

SELECT count(*) FROM document_chunks WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM document_fts WHERE document_fts MATCH ?
;

SELECT count(*) FROM embedding_cache WHERE memory_type = ?1
			AND memory_pk NOT IN (SELECT rowid FROM vec_document)
;

SELECT count(*) FROM embedding_cache WHERE memory_type = ?1
			AND memory_pk NOT IN (SELECT rowid FROM vec_episodic)
;

SELECT count(*) FROM embedding_cache WHERE memory_type = ?1
			AND memory_pk NOT IN (SELECT rowid FROM vec_procedural)
;

SELECT count(*) FROM embedding_cache WHERE memory_type = ?1
			AND memory_pk NOT IN (SELECT rowid FROM vec_semantic)
;

SELECT count(*) FROM episodic_fts WHERE episodic_fts MATCH ?
;

SELECT count(*) FROM episodic_log WHERE agent_id = ?
;

SELECT count(*) FROM episodic_log WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM extraction_rules WHERE agent_id = ? AND name = ?
;

SELECT count(*) FROM fact_aliases WHERE agent_id = ? AND alias_key = ?
;

SELECT count(*) FROM fact_fts WHERE fact_fts MATCH ?
;

SELECT count(*) FROM facts WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM procedural_fts WHERE procedural_fts MATCH ?
;

SELECT count(*) FROM procedural_memory WHERE agent_id = ?
;

SELECT count(*) FROM procedural_memory WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM semantic_fts WHERE semantic_fts MATCH ?
;

SELECT count(*) FROM semantic_memory WHERE agent_id = ?
;

SELECT count(*) FROM semantic_memory WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM session_snapshots WHERE agent_id = ? AND id = ?
;

SELECT count(*) FROM snapshot_fts WHERE snapshot_fts MATCH ?
;

SELECT count(*) FROM vec_document_rowids
;

SELECT count(*) FROM vec_episodic_rowids
;

SELECT count(*) FROM vec_procedural_rowids
;

SELECT count(*) FROM vec_semantic WHERE rowid = ?
;

SELECT count(*) FROM vec_semantic_rowids
;

SELECT count(*) FROM vector_pending WHERE agent_id = ?
;

SELECT count(*) FROM zettel_links WHERE agent_id = ? AND source_type = ? AND source_id = ? AND target_type = ? AND target_id = ? AND link_type = ?
;

SELECT count(DISTINCT segid) FROM document_fts_idx
;

SELECT count(DISTINCT segid) FROM episodic_fts_idx
;

SELECT count(DISTINCT segid) FROM fact_fts_idx
;

SELECT count(DISTINCT segid) FROM procedural_fts_idx
;

SELECT count(DISTINCT segid) FROM semantic_fts_idx
;

SELECT count(DISTINCT segid) FROM snapshot_fts_idx
;

SELECT doc FROM document_vocab WHERE term = ?
;

SELECT doc FROM episodic_vocab WHERE term = ?
;

SELECT doc FROM fact_vocab WHERE term = ?
;

SELECT doc FROM procedural_vocab WHERE term = ?
;

SELECT doc FROM semantic_vocab WHERE term = ?
;

SELECT doc FROM snapshot_vocab WHERE term = ?
;

SELECT e.pk, e.session_id, CASE WHEN rtrim(e.content) LIKE '%?' THEN 1 ELSE 0 END FROM json_each(?2) j CROSS JOIN episodic_log e ON e.pk = CAST(j.value AS INTEGER)
	WHERE e.agent_id = ?1
;

SELECT e1.pk FROM facts e1 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.object_key = ?5 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3)
UNION ALL
SELECT e1.pk FROM facts e1 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.subject_key = ?5 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) LIMIT ?6
;

SELECT e1.pk, e2.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.object_key AND e2.object_key = ?5 AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.subject_key AND e2.object_key = ?5 AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.object_key AND e2.subject_key = ?5 AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.subject_key AND e2.subject_key = ?5 AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) LIMIT ?6
;

SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.object_key NOT IN (?4, ?5, e1.object_key) AND e3.agent_id = ?1 AND e3.subject_key = e2.object_key AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.object_key NOT IN (?4, ?5, e1.subject_key) AND e3.agent_id = ?1 AND e3.subject_key = e2.object_key AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.subject_key NOT IN (?4, ?5, e1.object_key) AND e3.agent_id = ?1 AND e3.subject_key = e2.subject_key AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.subject_key NOT IN (?4, ?5, e1.subject_key) AND e3.agent_id = ?1 AND e3.subject_key = e2.subject_key AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.object_key NOT IN (?4, ?5, e1.object_key) AND e3.agent_id = ?1 AND e3.object_key = e2.object_key AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.subject_key = e1.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.object_key NOT IN (?4, ?5, e1.subject_key) AND e3.agent_id = ?1 AND e3.object_key = e2.object_key AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.subject_key NOT IN (?4, ?5, e1.object_key) AND e3.agent_id = ?1 AND e3.object_key = e2.subject_key AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e2.agent_id = ?1 AND e2.object_key = e1.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) AND e2.subject_key NOT IN (?4, ?5, e1.subject_key) AND e3.agent_id = ?1 AND e3.object_key = e2.subject_key AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) LIMIT ?6
;

SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.object_key NOT IN (?4, ?5, e1.object_key) AND e2.agent_id = ?1 AND e2.subject_key = e1.object_key AND e2.object_key = e3.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.object_key NOT IN (?4, ?5, e1.subject_key) AND e2.agent_id = ?1 AND e2.subject_key = e1.subject_key AND e2.object_key = e3.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.object_key NOT IN (?4, ?5, e1.object_key) AND e2.agent_id = ?1 AND e2.object_key = e1.object_key AND e2.subject_key = e3.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_out CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.subject_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.object_key NOT IN (?4, ?5, e1.subject_key) AND e2.agent_id = ?1 AND e2.object_key = e1.subject_key AND e2.subject_key = e3.object_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.subject_key NOT IN (?4, ?5, e1.object_key) AND e2.agent_id = ?1 AND e2.subject_key = e1.object_key AND e2.object_key = e3.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_out WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.subject_key NOT IN (?4, ?5, e1.subject_key) AND e2.agent_id = ?1 AND e2.subject_key = e1.subject_key AND e2.object_key = e3.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_out CROSS JOIN facts e3 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.subject_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.object_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.subject_key NOT IN (?4, ?5, e1.object_key) AND e2.agent_id = ?1 AND e2.object_key = e1.object_key AND e2.subject_key = e3.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3)
UNION ALL
SELECT e1.pk, e2.pk, e3.pk FROM facts e1 INDEXED BY facts_in CROSS JOIN facts e3 INDEXED BY facts_in CROSS JOIN facts e2 INDEXED BY facts_in WHERE e1.agent_id = ?1 AND e1.object_key = ?4 AND e1.valid_from <= ?2 AND (e1.valid_to IS NULL OR e1.valid_to > ?3) AND e1.subject_key NOT IN (?4, ?5) AND e3.agent_id = ?1 AND e3.object_key = ?5 AND e3.valid_from <= ?2 AND (e3.valid_to IS NULL OR e3.valid_to > ?3) AND e3.subject_key NOT IN (?4, ?5, e1.subject_key) AND e2.agent_id = ?1 AND e2.object_key = e1.subject_key AND e2.subject_key = e3.subject_key AND e2.valid_from <= ?2 AND (e2.valid_to IS NULL OR e2.valid_to > ?3) LIMIT ?6
;

SELECT embedding FROM vec_semantic WHERE rowid = ?
;

SELECT f.pk, f.subject_key, f.object_key, f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals
	FROM json_each(?2) j CROSS JOIN facts f ON f.pk = CAST(j.value AS INTEGER) WHERE f.agent_id = ?1
;

SELECT hash FROM markdown_files WHERE agent_id = ?
;

SELECT id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.session_id = ?8 AND episodic_log.session_id <> '' AND coalesce(json_type(episodic_log.metadata, ?9) = 'text' AND (episodic_log.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.session_id = ?8 AND episodic_log.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.session_id = ?8 AND procedural_memory.session_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?9) = 'text' AND (procedural_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.session_id = ?8 AND procedural_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM semantic_memory WHERE agent_id = ? AND last_accessed_at <= ?
		AND id IN (SELECT value FROM json_each(?))
;

SELECT id FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.session_id = ?8 AND semantic_memory.session_id <> '' AND coalesce(json_type(semantic_memory.metadata, ?9) = 'text' AND (semantic_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.session_id = ?8 AND semantic_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id FROM session_snapshots WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'snapshot') < (?4, ?5, ?6) AND session_snapshots.session_id = ?8 AND session_snapshots.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND (coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) = ?, 0) OR coalesce(json_type(episodic_log.metadata, ?) IN ('integer', 'real') AND (episodic_log.metadata ->> ?) <= ?, 0)) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND (coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) > ?, 0) AND coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) < ?, 0)) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND 1 ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND coalesce(json_type(episodic_log.metadata, ?) = 'true', 0) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND coalesce(json_type(episodic_log.metadata, ?) IN ('integer', 'real') AND (episodic_log.metadata ->> ?) >= ?, 0) ORDER BY created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at DESC, pk DESC
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, pk
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.session_id = ? AND episodic_log.session_id <> '' ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND NOT (json_type(episodic_log.metadata, ?) IS NOT NULL) ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND coalesce(json_type(episodic_log.metadata, ?) = 'text' AND (episodic_log.metadata ->> ?) = ?, 0) ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND episodic_log.created_at < ? ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND episodic_log.created_at >= ? ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' AND episodic_log.session_id = ? AND episodic_log.session_id <> '' ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND episodic_log.user_id = ? AND episodic_log.user_id <> '' ORDER BY +created_at DESC, pk DESC LIMIT ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND id = ?
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ? AND task_id = ? AND task_id <> '' ORDER BY created_at, pk
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND NOT (json_type(episodic_log.metadata, ?9) IS NOT NULL) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND coalesce(json_type(episodic_log.metadata, ?9) = 'text' AND (episodic_log.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND episodic_log.created_at < ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND episodic_log.created_at >= ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
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

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.session_id = ?8 AND episodic_log.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) AND episodic_log.user_id = ?8 AND episodic_log.user_id <> '' AND episodic_log.session_id = ?9 AND episodic_log.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'episodic') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log WHERE agent_id = ?1 AND id = ?2
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
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND 1 ORDER BY importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
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
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND id = ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.session_id = ? AND semantic_memory.session_id <> '' ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(semantic_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
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
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND semantic_memory.created_at < ? ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND semantic_memory.created_at >= ? ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' AND semantic_memory.session_id = ? AND semantic_memory.session_id <> '' ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ? AND semantic_memory.user_id = ? AND semantic_memory.user_id <> '' ORDER BY +importance DESC, updated_at DESC, id LIMIT ? OFFSET ?
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8))) AND semantic_memory.user_id = ?9 AND semantic_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(semantic_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?10))) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(semantic_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?9))) ORDER BY +created_at DESC, id DESC LIMIT ?7
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
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND semantic_memory.created_at < ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND semantic_memory.created_at >= ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
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
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(semantic_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7
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

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.session_id = ?8 AND semantic_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) AND semantic_memory.user_id = ?8 AND semantic_memory.user_id <> '' AND semantic_memory.session_id = ?9 AND semantic_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'semantic') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, content, summary, importance, verified, tags, source,
	created_at, updated_at, access_count, last_accessed_at, resonance, merged_from, retrievals,
	user_id, session_id, nullif(metadata, '{}') FROM semantic_memory WHERE agent_id = ?1 AND id = ?2
;

SELECT id, created_at FROM document_chunks WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM episodic_log WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM episodic_log WHERE agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM facts WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM procedural_memory WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM semantic_memory WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM semantic_memory WHERE agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, created_at FROM session_snapshots WHERE +agent_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM (
			SELECT p.*, (SELECT count(DISTINCT t.value) FROM json_each(p.tags) t
			             WHERE t.value IN (SELECT value FROM json_each(?2))) AS hits
			FROM procedural_memory p WHERE p.agent_id = ?1)
		WHERE hits > 0 ORDER BY hits DESC, success_rate DESC, use_count DESC, id LIMIT ?3
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory
		WHERE agent_id = ? AND id = ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory
		WHERE agent_id = ? AND name = ?
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
		AND 1 ORDER BY success_rate DESC, use_count DESC, id LIMIT ?
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
		AND procedural_memory.session_id = ? AND procedural_memory.session_id <> '' ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(procedural_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?))) ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
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
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND procedural_memory.created_at < ? ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND procedural_memory.created_at >= ? ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' AND procedural_memory.session_id = ? AND procedural_memory.session_id <> '' ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND procedural_memory.user_id = ? AND procedural_memory.user_id <> '' ORDER BY +success_rate DESC, use_count DESC, id LIMIT ?
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8))) AND procedural_memory.user_id = ?9 AND procedural_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(procedural_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?10))) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(procedural_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?9))) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND NOT (json_type(procedural_memory.metadata, ?9) IS NOT NULL) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND coalesce(json_type(procedural_memory.metadata, ?9) = 'text' AND (procedural_memory.metadata ->> ?10) = ?11, 0) ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND procedural_memory.created_at < ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND procedural_memory.created_at >= ?9 ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND +created_at >= ?2 AND +created_at < ?3 AND (+created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
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
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(procedural_memory.tags) g WHERE g.value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7
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

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.session_id = ?8 AND procedural_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) AND procedural_memory.user_id = ?8 AND procedural_memory.user_id <> '' AND procedural_memory.session_id = ?9 AND procedural_memory.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'procedural') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata FROM procedural_memory WHERE agent_id = ?1 AND id = ?2
;

SELECT id, pk, before, after, form FROM history INDEXED BY history_by_memory
		WHERE agent_id = ?1 AND id IN (SELECT value FROM json_each(?2)) AND pk >= ?3 AND memory_type = ?4
		ORDER BY id, pk DESC
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots
		WHERE agent_id = ? AND session_id = ? ORDER BY ended_at DESC, pk DESC
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots WHERE agent_id = ?
			ORDER BY ended_at DESC, pk DESC LIMIT 1
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots WHERE agent_id = ? AND session_id = ?
			ORDER BY ended_at DESC, pk DESC LIMIT 1
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'snapshot') < (?4, ?5, ?6) AND session_snapshots.session_id = ?8 AND session_snapshots.session_id <> '' ORDER BY +created_at DESC, id DESC LIMIT ?7
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'snapshot') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, session_id, messages, summary, key_decisions, task_ids, started_at,
	ended_at, total_cost, total_tokens, created_at, retrievals FROM session_snapshots WHERE agent_id = ?1 AND id = ?2
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?2 AND (source = ?1 OR EXISTS (SELECT 1 FROM json_each(sources) s WHERE s.value ->> '$.source' = ?1)) ORDER BY source, chunk, id
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?2 AND id = ?1 ORDER BY source, chunk, id
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?3 AND pk IN (SELECT pk FROM document_chunks WHERE agent_id = ?1 AND id = ?2) ORDER BY source, chunk, id
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?8 AND pk IN (SELECT pk FROM document_chunks WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'document') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7) ORDER BY source, chunk, id
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?9 AND pk IN (SELECT pk FROM document_chunks WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'document') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(document_chunks.tags) g WHERE g.value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7) ORDER BY source, chunk, id
;

SELECT id, source, heading, chunk, sources, title, tags, content, created_at, updated_at, retrievals FROM document_chunks WHERE agent_id = ?9 AND pk IN (SELECT pk FROM document_chunks WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'document') < (?4, ?5, ?6) AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value IN (SELECT value FROM json_each(?8))) ORDER BY created_at DESC, id DESC LIMIT ?7) ORDER BY source, chunk, id
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND ?2 = '' AND (?3 = '' OR f.predicate_key = ?3) AND f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND ?2 = '' AND (?3 = '' OR f.predicate_key = ?3) AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.object_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.subject_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND 1)
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.subject_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5) UNION ALL SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.object_key = ?2 AND f.subject_key <> ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.subject_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.subject_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5) UNION ALL SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.object_key = ?2 AND f.subject_key <> ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM (SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.strength, f.sources, f.metadata, f.retrievals, f.subject_key, f.predicate_key FROM facts f WHERE f.agent_id = ?1 AND f.subject_key = ?2 AND (?3 = '' OR f.predicate_key = ?3) AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5))
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ? AND id = ?
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
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND (created_at, id, 'fact') < (?4, ?5, ?6) ORDER BY created_at DESC, id DESC LIMIT ?7
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts WHERE agent_id = ?1 AND id = ?2
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
		AND 1 ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND coalesce(json_type(f.metadata, ?) = 'true', 0) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals FROM facts f WHERE agent_id = ? AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		AND coalesce(json_type(f.metadata, ?) IN ('integer', 'real') AND (f.metadata ->> ?) >= ?, 0) ORDER BY strength DESC, updated_at DESC, id LIMIT ?
;

SELECT j.value, coalesce(nullif(trim(t.summary || coalesce(' Decisions: ' || (SELECT group_concat(value, '; ') FROM json_each(t.key_decisions)), '')), ''),
			(SELECT group_concat((value ->> '$.role') || ': ' || (value ->> '$.content'), ' / ') FROM json_each(t.messages)), ''), '' FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT j.value, t.content, '' FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT j.value, t.content, '' FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT j.value, t.content, t.source || CASE WHEN t.heading = '' THEN '' ELSE ' > ' || t.heading END FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT j.value, t.name || ': ' || t.description, '' FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT j.value, t.subject || ' ' || t.predicate || ' ' || t.object, '' FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT json_group_array(content) FROM episodic_log
		WHERE agent_id = ?1 AND content IN (SELECT value FROM json_each(?2)) AND (?3 = '' OR user_id = ?3)
;

SELECT json_group_array(id) FROM episodic_log
		WHERE agent_id = ?1 AND id IN (SELECT value FROM json_each(?2))
;

SELECT json_group_array(id) FROM semantic_memory
		WHERE agent_id = ?1 AND id IN (SELECT value FROM json_each(?2))
;

SELECT json_group_array(j.value ->> '$.k') FROM json_each(?2) j
		WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND content_hash = unhex(j.value ->> '$.h')
			AND content = j.value ->> '$.k' AND (?3 = '' OR user_id = ?3))
;

SELECT json_group_array(name) FROM procedural_memory
		WHERE agent_id = ?1 AND name IN (SELECT value FROM json_each(?2))
;

SELECT json_group_array(predicate_key) FROM fact_predicates
			WHERE agent_id = ?1 AND model = ?2 AND predicate_key IN (SELECT value FROM json_each(?3))
;

SELECT k.predicate_key, e.embedding FROM
			(SELECT DISTINCT predicate_key FROM facts WHERE agent_id = ?1 AND subject_key = ?2) k
		LEFT JOIN fact_predicates e ON e.agent_id = ?1 AND e.predicate_key = k.predicate_key AND e.model = ?3
;

SELECT key FROM meta WHERE key >= ? AND key < ? ORDER BY key
;

SELECT kind FROM (SELECT 'semantic' AS kind, id FROM semantic_memory WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'episodic' AS kind, id FROM episodic_log WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'procedural' AS kind, id FROM procedural_memory WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'fact' AS kind, id FROM facts WHERE agent_id = ?1 AND id = ?2 UNION ALL SELECT 'document' AS kind, id FROM document_chunks WHERE agent_id = ?1 AND id = ?2)
;

SELECT kind, id, line FROM markdown_lines WHERE agent_id = ?
;

SELECT memory_type FROM archive WHERE agent_id = ? AND id = ? ORDER BY pk
;

SELECT memory_type, id FROM archive WHERE agent_id = ?1 AND memory_type IN ('semantic', 'episodic', 'procedural') AND (row ->> '$.user_id') = ?2
;

SELECT min(content), count(DISTINCT created_at / ?3), json_group_array(id)
		FROM episodic_log WHERE agent_id = ?1 AND event_type <> ?2
		GROUP BY lower(trim(content)) HAVING count(DISTINCT created_at / ?3) >= ?4
		ORDER BY min(pk)
;

SELECT name, pattern, memory_type, importance, tags, active, created_at, subject, predicate, object
		FROM extraction_rules WHERE agent_id = ? AND (active <> 0 OR ? = 0) ORDER BY name
;

SELECT name, upper(type), "notnull", dflt_value IS NOT NULL FROM pragma_table_info(?)
;

SELECT op, reason FROM temp.history_ctx
;

SELECT p.memory_type, p.pk, CASE p.memory_type WHEN 'semantic' THEN (SELECT t.content FROM semantic_memory t WHERE t.pk = p.pk) WHEN 'episodic' THEN (SELECT t.content FROM episodic_log t WHERE t.pk = p.pk) WHEN 'procedural' THEN (SELECT t.name || ': ' || t.description FROM procedural_memory t WHERE t.pk = p.pk) WHEN 'document' THEN (SELECT t.content FROM document_chunks t WHERE t.pk = p.pk) END
		FROM vector_pending p WHERE p.agent_id = ?1 ORDER BY p.attempts, p.memory_type, p.pk LIMIT ?2
;

SELECT p.pk FROM json_each(?2) j CROSS JOIN vector_pending p ON p.memory_type = ?1 AND p.pk = CAST(j.value AS INTEGER)
;

SELECT pk FROM document_chunks WHERE agent_id = ? AND id = ?
;

SELECT pk FROM episodic_log WHERE agent_id = ? AND id = ?
;

SELECT pk FROM history INDEXED BY history_by_memory
		WHERE agent_id = ? AND id = ? AND pk <= ? AND memory_type = ? AND form IS NOT NULL ORDER BY pk LIMIT 1
;

SELECT pk FROM procedural_memory WHERE agent_id = ? AND id = ?
;

SELECT pk FROM semantic_memory WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, content FROM document_chunks WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, content FROM document_chunks WHERE pk = ? AND agent_id = ?
;

SELECT pk, agent_id, id, content FROM episodic_log WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, content FROM semantic_memory WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, content FROM semantic_memory WHERE pk = ?
;

SELECT pk, agent_id, id, name, description FROM procedural_memory WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, subject, predicate, object FROM facts WHERE agent_id = ? AND id = ?
;

SELECT pk, agent_id, id, summary, key_decisions, messages FROM session_snapshots WHERE agent_id = ? AND id = ?
;

SELECT pk, content FROM document_chunks WHERE agent_id = ?
;

SELECT pk, content FROM semantic_memory WHERE agent_id = ? AND id = ?
;

SELECT pk, id, content FROM semantic_memory WHERE agent_id = ? ORDER BY pk
;

SELECT pk, id, content, event_type, task_id, session_id, cost, duration_ns, metadata, created_at, retrievals, user_id FROM episodic_log
		WHERE agent_id = ? AND created_at < ? AND event_type <> ? ORDER BY user_id, created_at, pk
;

SELECT pk, id, content_hash, source, heading, chunk, sources FROM document_chunks WHERE agent_id = ?
;

SELECT pk, id, importance, (access_count - promoted_at_count) / ?2 FROM semantic_memory
		WHERE agent_id = ?1 AND access_count - promoted_at_count >= ?2 AND importance < ?3 ORDER BY pk
;

SELECT pk, lower(hex(hash)) FROM embedding_cache WHERE memory_pk IS NULL
;

SELECT pk, object_key, valid_from, coalesce(valid_to, ?4), sources, metadata
		FROM facts WHERE agent_id = ?1 AND subject_key = ?2 AND predicate_key = ?3 AND coalesce(valid_to, ?4) > ?5 AND object_key = ?6 ORDER BY valid_from, pk
;

SELECT pk, object_key, valid_from, coalesce(valid_to, ?4), sources, metadata
		FROM facts WHERE agent_id = ?1 AND subject_key = ?2 AND predicate_key = ?3 AND coalesce(valid_to, ?4) > ?5 ORDER BY valid_from, pk
;

SELECT pk, op, memory_type, id, before, after, actor, reason, at, form FROM history INDEXED BY history_by_memory
			WHERE agent_id = ? AND id = ? ORDER BY pk
;

SELECT pk, op, memory_type, id, before, after, actor, reason, at, form FROM history INDEXED BY history_by_time
			WHERE agent_id = ?1 AND (at > ?2 OR (at = ?2 AND pk > ?3)) AND (at < ?5 OR (at = ?5 AND pk < ?6))
				AND (?7 = '' OR actor = ?7)
			ORDER BY at DESC, pk DESC LIMIT ?4
;

SELECT pk, op, memory_type, id, before, after, actor, reason, at, form FROM history INDEXED BY history_by_time
			WHERE agent_id = ?1 AND (at > ?2 OR (at = ?2 AND pk > ?3)) AND (at < ?5 OR (at = ?5 AND pk < ?6))
				AND (?7 = '' OR actor = ?7)
			ORDER BY at, pk LIMIT ?4
;

SELECT pk, valid_from, valid_to FROM facts WHERE agent_id = ? AND id = ?
;

SELECT rowid FROM episodic_fts WHERE episodic_fts MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2
;

SELECT rowid FROM semantic_fts WHERE semantic_fts MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2
;

SELECT s.name FROM sqlite_schema s
		WHERE s.type = 'table' AND s.name NOT LIKE 'sqlite\_%' ESCAPE '\' AND s.sql NOT LIKE 'CREATE VIRTUAL%'
			AND EXISTS (SELECT 1 FROM pragma_table_info(s.name) c WHERE c.name = 'agent_id')
		ORDER BY s.name
;

SELECT s.pk, s.id FROM json_each(?1) j CROSS JOIN document_chunks s ON s.pk = CAST(j.value AS INTEGER)
		WHERE s.agent_id = ?2
;

SELECT s.pk, s.id FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = CAST(j.value AS INTEGER)
		WHERE s.agent_id = ?2
;

SELECT s.pk, s.id, s.content FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = CAST(j.value AS INTEGER)
		WHERE s.agent_id = ?2 ORDER BY j.key
;

SELECT s.pk, s.id, s.content, s.importance, s.access_count, s.created_at, s.tags, s.merged_from,
			(s.verified <> 0 OR EXISTS (SELECT 1 FROM json_each(s.tags) g WHERE g.value IN (SELECT value FROM json_each(?2)))), s.user_id
		FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = CAST(j.value AS INTEGER) WHERE s.agent_id = ?3
;

SELECT t.agent_id FROM document_chunks t WHERE (t.agent_id < ?1 OR t.agent_id > ?1)
			AND NOT EXISTS (SELECT 1 FROM vector_pending p WHERE p.memory_type = ?2 AND p.pk = t.pk) LIMIT 1
;

SELECT t.agent_id FROM episodic_log t WHERE (t.agent_id < ?1 OR t.agent_id > ?1)
			AND NOT EXISTS (SELECT 1 FROM vector_pending p WHERE p.memory_type = ?2 AND p.pk = t.pk) LIMIT 1
;

SELECT t.agent_id FROM procedural_memory t WHERE (t.agent_id < ?1 OR t.agent_id > ?1)
			AND NOT EXISTS (SELECT 1 FROM vector_pending p WHERE p.memory_type = ?2 AND p.pk = t.pk) LIMIT 1
;

SELECT t.agent_id FROM semantic_memory t WHERE (t.agent_id < ?1 OR t.agent_id > ?1)
			AND NOT EXISTS (SELECT 1 FROM vector_pending p WHERE p.memory_type = ?2 AND p.pk = t.pk) LIMIT 1
;

SELECT t.content FROM document_chunks t WHERE t.pk = ?1 AND t.agent_id = ?2
				AND EXISTS (SELECT 1 FROM vector_pending WHERE memory_type = ?3 AND pk = ?1)
;

SELECT t.content FROM episodic_log t WHERE t.pk = ?1 AND t.agent_id = ?2
				AND EXISTS (SELECT 1 FROM vector_pending WHERE memory_type = ?3 AND pk = ?1)
;

SELECT t.content FROM semantic_memory t WHERE t.pk = ?1 AND t.agent_id = ?2
				AND EXISTS (SELECT 1 FROM vector_pending WHERE memory_type = ?3 AND pk = ?1)
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

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> ''))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'episodic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> ''))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?))))) OR (t.memory_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(x.tags) g WHERE g.value IN (SELECT value FROM json_each(?)))))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'semantic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND EXISTS (SELECT 1 FROM json_each((t2.row ->> '$.tags')) g WHERE g.value IN (SELECT value FROM json_each(?)))) OR (t2.memory_type = 'procedural' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND EXISTS (SELECT 1 FROM json_each((t2.row ->> '$.tags')) g WHERE g.value IN (SELECT value FROM json_each(?)))))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.memory_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0))) OR (t.memory_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND coalesce(json_type(x.metadata, ?) = 'text' AND (x.metadata ->> ?) = ?, 0)))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'semantic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t2.memory_type = 'episodic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t2.memory_type = 'procedural' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND coalesce(json_type((t2.row ->> '$.metadata'), ?) = 'text' AND ((t2.row ->> '$.metadata') ->> ?) = ?, 0)))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.memory_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> '')) OR (t.memory_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '' AND x.session_id = ? AND x.session_id <> ''))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'semantic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND (t2.row ->> '$.session_id') = ? AND (t2.row ->> '$.session_id') <> '') OR (t2.memory_type = 'episodic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND (t2.row ->> '$.session_id') = ? AND (t2.row ->> '$.session_id') <> '') OR (t2.memory_type = 'procedural' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '' AND (t2.row ->> '$.session_id') = ? AND (t2.row ->> '$.session_id') <> ''))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND ((((t.memory_type = 'semantic' AND EXISTS (SELECT 1 FROM semantic_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '')) OR (t.memory_type = 'episodic' AND EXISTS (SELECT 1 FROM episodic_log x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> '')) OR (t.memory_type = 'procedural' AND EXISTS (SELECT 1 FROM procedural_memory x WHERE x.agent_id = t.agent_id AND x.id = t.id AND x.user_id = ? AND x.user_id <> ''))) OR EXISTS (SELECT 1 FROM archive t2 WHERE t2.agent_id = t.agent_id AND t2.id = t.id AND t2.memory_type = t.memory_type AND ((t2.memory_type = 'semantic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '') OR (t2.memory_type = 'episodic' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> '') OR (t2.memory_type = 'procedural' AND (t2.row ->> '$.user_id') = ? AND (t2.row ->> '$.user_id') <> ''))))) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.op, t.before, t.after, t.actor, t.reason, t.at, t.pk, t.form FROM history t WHERE t.agent_id = ? AND (1) AND t.pk > ? ORDER BY t.pk LIMIT ?
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '')) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0))) OR (t.memory_type = 'episodic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0))) OR (t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0) OR coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) <= ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0))) OR (t.memory_type = 'episodic' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0))) OR (t.memory_type = 'procedural' AND (coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) > ?, 0) AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) < ?, 0)))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '') OR (t.memory_type = 'episodic' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '') OR (t.memory_type = 'procedural' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '')) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') < ?) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') < ?) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') < ?)) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') >= ?) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') >= ?) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.created_at') >= ?)) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '') OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '') OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND (t.row ->> '$.session_id') = ? AND (t.row ->> '$.session_id') <> '')) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) < ?) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) < ?) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) < ?)) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) >= ?) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) >= ?) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND CAST((t.row ->> '$.created_at') AS INTEGER) >= ?)) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND EXISTS (SELECT 1 FROM json_each((t.row ->> '$.tags')) g WHERE g.value IN (SELECT value FROM json_each(?)))) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND EXISTS (SELECT 1 FROM json_each((t.row ->> '$.tags')) g WHERE g.value IN (SELECT value FROM json_each(?))))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL)) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL)) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND NOT (json_type((t.row ->> '$.metadata'), ?) IS NOT NULL))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0)) OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '') OR (t.memory_type = 'episodic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '') OR (t.memory_type = 'procedural' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '')) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND (t.row ->> '$.user_id') = ? AND (t.row ->> '$.user_id') <> '')) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND NOT coalesce(json_type((t.row ->> '$.metadata'), ?) = 'text' AND ((t.row ->> '$.metadata') ->> ?) = ?, 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0)) OR (t.memory_type = 'episodic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0)) OR (t.memory_type = 'procedural' AND coalesce(json_type((t.row ->> '$.metadata'), ?) = 'true', 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND ((t.memory_type = 'semantic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0)) OR (t.memory_type = 'episodic' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0)) OR (t.memory_type = 'procedural' AND coalesce(json_type((t.row ->> '$.metadata'), ?) IN ('integer', 'real') AND ((t.row ->> '$.metadata') ->> ?) >= ?, 0))) ORDER BY t.pk
;

SELECT t.memory_type, t.id, t.row, t.links, t.reason, t.merged_into, t.archived_at FROM archive t WHERE t.agent_id = ? AND 1 ORDER BY t.pk
;

SELECT t.name || ': ' || t.description FROM procedural_memory t WHERE t.pk = ?1 AND t.agent_id = ?2
				AND EXISTS (SELECT 1 FROM vector_pending WHERE memory_type = ?3 AND pk = ?1)
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (coalesce(json_type(t.metadata, ?7) IN ('integer', 'real') AND (t.metadata ->> ?8) < ?9, 0))
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (t.session_id = ?7 AND t.session_id <> '')
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (t.user_id = ?7 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?8) IN ('integer', 'real') AND (t.metadata ->> ?9) >= ?10, 0))
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (t.user_id = ?7 AND t.user_id <> '' AND t.session_id = ?8 AND t.session_id <> '')
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND (t.user_id = ?7 AND t.user_id <> '')
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
				WHERE episodic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND ?6 = ''
					AND 1 /*scope*/
				ORDER BY episodic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND ((json_type(t.metadata, ?7) IS NOT NULL))
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?7))))
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (coalesce(json_type(t.metadata, ?7) IN ('integer', 'real') AND (t.metadata ->> ?8) < ?9, 0))
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (t.session_id = ?7 AND t.session_id <> '')
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (t.user_id = ?7 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?8) IN ('integer', 'real') AND (t.metadata ->> ?9) >= ?10, 0))
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (t.user_id = ?7 AND t.user_id <> '' AND t.session_id = ?8 AND t.session_id <> '')
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND (t.user_id = ?7 AND t.user_id <> '')
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
				WHERE semantic_fts MATCH ?1 AND t.agent_id = ?3 AND t.created_at >= ?4 AND t.created_at < ?5 AND (?6 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))
					AND 1 /*scope*/
				ORDER BY semantic_fts.rowid DESC LIMIT 1 OFFSET ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND ((json_type(t.metadata, ?6) IS NOT NULL))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND ((json_type(t.metadata, ?6) IS NOT NULL))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?6))))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.session_id = ?6 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.session_id = ?6 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '')), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '')), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/), 1 FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/), 1 FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/), 1 FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) IN ('integer', 'real') AND (t.metadata ->> ?7) < ?8, 0))), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))), t.valid_from <= ?6 AND (t.valid_to IS NULL OR t.valid_to > ?6) FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?7) IN ('integer', 'real') AND (t.metadata ->> ?8) < ?9, 0))), t.valid_from <= ?6 AND (t.valid_to IS NULL OR t.valid_to > ?6) FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.session_id = ?6 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.session_id = ?6 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '')), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND 1 /*scope*/), 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND 1 /*scope*/), 1 FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, (t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND 1 /*scope*/), t.valid_from <= ?6 AND (t.valid_to IS NULL OR t.valid_to > ?6) FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER) WHERE t.agent_id = ?2
;

SELECT t.pk, coalesce(nullif(trim(t.summary || coalesce(' Decisions: ' || (SELECT group_concat(value, '; ') FROM json_each(t.key_decisions)), '')), ''),
			(SELECT group_concat((value ->> '$.role') || ': ' || (value ->> '$.content'), ' / ') FROM json_each(t.messages)), ''), 0.5, t.ended_at FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(nullif(trim(t.summary || coalesce(' Decisions: ' || (SELECT group_concat(value, '; ') FROM json_each(t.key_decisions)), '')), ''),
			(SELECT group_concat((value ->> '$.role') || ': ' || (value ->> '$.content'), ' / ') FROM json_each(t.messages)), ''), 0.5, t.ended_at, t.retrievals, 1 FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.content, '')
				FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.content, '') FROM episodic_log t WHERE t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.content, ''), coalesce(t.tags, '')
				FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.content, ''), coalesce(t.tags, '') FROM semantic_memory t WHERE t.agent_id = ? AND t.id = ? AND t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.content, ''), coalesce(t.tags, '') FROM semantic_memory t WHERE t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '')
				FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '') FROM procedural_memory t WHERE t.agent_id = ? AND t.id = ? AND t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '') FROM procedural_memory t WHERE t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, '')
				FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '')
				FROM json_each(?1) j CROSS JOIN session_snapshots t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') FROM session_snapshots t WHERE t.agent_id = ? AND t.id = ? AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') FROM session_snapshots t WHERE t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, '')
				FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, '') FROM document_chunks t WHERE t.agent_id = ? AND t.id = ? AND t.terms IS NULL AND t.pk > ? ORDER BY t.pk LIMIT 1000
;

SELECT t.pk, r.chunk_id FROM document_chunks t CROSS JOIN vec_document_rowids r ON r.rowid = t.pk
		WHERE t.agent_id = ?
;

SELECT t.pk, r.chunk_id FROM episodic_log t CROSS JOIN vec_episodic_rowids r ON r.rowid = t.pk
		WHERE t.agent_id = ?
;

SELECT t.pk, r.chunk_id FROM procedural_memory t CROSS JOIN vec_procedural_rowids r ON r.rowid = t.pk
		WHERE t.agent_id = ?
;

SELECT t.pk, r.chunk_id FROM semantic_memory t CROSS JOIN vec_semantic_rowids r ON r.rowid = t.pk
		WHERE t.agent_id = ?
;

SELECT t.pk, t.content, 0.5 * t.resonance FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.content, 0.5 * t.resonance, t.retrievals, 1 FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.content, t.pk IN (SELECT rowid FROM vec_document) FROM document_chunks t
;

SELECT t.pk, t.content, t.pk IN (SELECT rowid FROM vec_episodic) FROM episodic_log t
;

SELECT t.pk, t.content, t.pk IN (SELECT rowid FROM vec_semantic) FROM semantic_memory t
;

SELECT t.pk, t.content, t.source || CASE WHEN t.heading = '' THEN '' ELSE ' > ' || t.heading END, t.tags, 0.5, t.updated_at FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.content, t.source || CASE WHEN t.heading = '' THEN '' ELSE ' > ' || t.heading END, t.tags, 0.5, t.updated_at, t.retrievals, 1 + json_array_length(t.sources) FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.content, t.tags, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at) FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.content, t.tags, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from) FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.id FROM episodic_log t WHERE t.agent_id = ?1 AND NOT 0
		ORDER BY 0.5 * t.resonance, t.created_at, t.pk LIMIT ?2
;

SELECT t.pk, t.id FROM procedural_memory t WHERE t.agent_id = ?1 AND t.resonance < ?3 AND t.success_rate < 0.5
		AND NOT EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?2))) ORDER BY t.pk
;

SELECT t.pk, t.id FROM semantic_memory t WHERE t.agent_id = ?1 AND NOT (t.verified <> 0 OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?2))))
		ORDER BY t.importance * t.resonance, t.created_at, t.pk LIMIT ?3
;

SELECT t.pk, t.id FROM semantic_memory t WHERE t.agent_id = ?1 AND t.resonance < ?3 AND t.importance < 0.5
		AND NOT (t.verified <> 0 OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?2)))) ORDER BY t.pk
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.session_id = ?6 AND t.session_id <> '')
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND (t.user_id = ?6 AND t.user_id <> '')
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1
			FROM json_each(?1) j CROSS JOIN episodic_log t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND ?5 = '' AND 1 /*scope*/
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0) OR coalesce(json_type(t.metadata, ?14) IN ('integer', 'real') AND (t.metadata ->> ?15) <= ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) > ?13, 0) AND coalesce(json_type(t.metadata, ?14) = 'text' AND (t.metadata ->> ?15) < ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'true', 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) < ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) >= ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.session_id = ?11 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND NOT (json_type(t.metadata, ?12) IS NOT NULL))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) = 'text' AND (t.metadata ->> ?13) = ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) IN ('integer', 'real') AND (t.metadata ->> ?13) >= ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND t.session_id = ?12 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.user_id = ?11 AND t.user_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5 * t.resonance, t.created_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT episodic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM episodic_fts CROSS JOIN episodic_log t ON t.pk = episodic_fts.rowid
					WHERE episodic_fts MATCH ?1 AND episodic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN episodic_log t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.ended_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT snapshot_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM snapshot_fts CROSS JOIN session_snapshots t ON t.pk = snapshot_fts.rowid
					WHERE snapshot_fts MATCH ?1 AND snapshot_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND (t.session_id = ?11 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN session_snapshots t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.ended_at, t.retrievals, 1, t.terms, t.ntok FROM (
					SELECT snapshot_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM snapshot_fts CROSS JOIN session_snapshots t ON t.pk = snapshot_fts.rowid
					WHERE snapshot_fts MATCH ?1 AND snapshot_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND 1 AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN session_snapshots t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0) OR coalesce(json_type(t.metadata, ?14) IN ('integer', 'real') AND (t.metadata ->> ?15) <= ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) > ?13, 0) AND coalesce(json_type(t.metadata, ?14) = 'text' AND (t.metadata ->> ?15) < ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND (coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND (coalesce(json_type(t.metadata, ?11) = 'true', 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) < ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) >= ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, '[]', t.created_at, 0.5, t.updated_at, t.retrievals, t.strength, t.terms, t.ntok FROM (
					SELECT fact_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM fact_fts CROSS JOIN facts t ON t.pk = fact_fts.rowid
					WHERE fact_fts MATCH ?1 AND fact_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND ?5 = '' AND t.valid_from <= ?10 AND (t.valid_to IS NULL OR t.valid_to > ?10) AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN facts t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.created_at, 0.5 * t.resonance, t.ntok, t.terms, t.session_id, t.user_id, t.session_id, CASE WHEN rtrim(t.content) LIKE '%?' THEN 1 ELSE 0 END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END FROM episodic_log t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5 * t.resonance, t.ntok, t.terms, t.session_id, t.user_id, t.session_id, CASE WHEN rtrim(t.content) LIKE '%?' THEN 1 ELSE 0 END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END FROM episodic_log t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.subject, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.predicate, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.object, '') ELSE '' END FROM facts t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.subject, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.predicate, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.object, '') ELSE '' END FROM facts t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.title, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.heading, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM document_chunks t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', '', 0, CASE WHEN t.terms IS NULL THEN coalesce(t.title, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.heading, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM document_chunks t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.summary, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') ELSE '' END FROM session_snapshots t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, 0.5, t.ntok, t.terms, '', '', t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.summary, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') ELSE '' END FROM session_snapshots t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, t.importance * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM semantic_memory t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, t.importance * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.content, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM semantic_memory t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, t.success_rate * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.name, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.description, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.pattern, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM procedural_memory t NOT INDEXED WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.created_at, t.success_rate * t.resonance, t.ntok, t.terms, '', t.user_id, t.session_id, 0, CASE WHEN t.terms IS NULL THEN coalesce(t.name, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.description, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.pattern, '') ELSE '' END, CASE WHEN t.terms IS NULL THEN coalesce(t.tags, '') ELSE '' END FROM procedural_memory t WHERE t.agent_id = ?1 ORDER BY t.pk
;

SELECT t.pk, t.id, t.tags, t.created_at, 0.5, t.updated_at, t.retrievals, 1 + json_array_length(t.sources)
			FROM json_each(?1) j CROSS JOIN document_chunks t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/
;

SELECT t.pk, t.id, t.tags, t.created_at, 0.5, t.updated_at, t.retrievals, 1 + json_array_length(t.sources), t.terms, t.ntok FROM (
					SELECT document_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM document_fts CROSS JOIN document_chunks t ON t.pk = document_fts.rowid
					WHERE document_fts MATCH ?1 AND document_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN document_chunks t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.session_id = ?6 AND t.session_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?7))))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from)
			FROM json_each(?1) j CROSS JOIN semantic_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0) OR coalesce(json_type(t.metadata, ?14) IN ('integer', 'real') AND (t.metadata ->> ?15) <= ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) > ?13, 0) AND coalesce(json_type(t.metadata, ?14) = 'text' AND (t.metadata ->> ?15) < ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((json_type(t.metadata, ?11) IS NOT NULL))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?11))))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (NOT coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'true', 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) < ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) >= ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.session_id = ?11 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?12))))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND NOT (json_type(t.metadata, ?12) IS NOT NULL))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) = 'text' AND (t.metadata ->> ?13) = ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) IN ('integer', 'real') AND (t.metadata ->> ?13) >= ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND t.session_id = ?12 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.importance * t.resonance, max(t.updated_at, t.last_accessed_at), t.retrievals, 1 + json_array_length(t.merged_from), t.terms, t.ntok FROM (
					SELECT semantic_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.content, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
					WHERE semantic_fts MATCH ?1 AND semantic_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN semantic_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (coalesce(json_type(t.metadata, ?6) = 'text' AND (t.metadata ->> ?7) = ?8, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.session_id = ?6 AND t.session_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?7))))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?7) = 'text' AND (t.metadata ->> ?8) = ?9, 0))
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '' AND t.session_id = ?7 AND t.session_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND (t.user_id = ?6 AND t.user_id <> '')
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate
			FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
			WHERE t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4 AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 /*scope*/
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0) OR coalesce(json_type(t.metadata, ?14) = 'text' AND (t.metadata ->> ?15) = ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0) OR coalesce(json_type(t.metadata, ?14) IN ('integer', 'real') AND (t.metadata ->> ?15) <= ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) > ?13, 0) AND coalesce(json_type(t.metadata, ?14) = 'text' AND (t.metadata ->> ?15) < ?16, 0)))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND ((json_type(t.metadata, ?11) IS NOT NULL))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?11))))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'text' AND (t.metadata ->> ?12) = ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) = 'true', 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) < ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (coalesce(json_type(t.metadata, ?11) IN ('integer', 'real') AND (t.metadata ->> ?12) >= ?13, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.session_id = ?11 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?12))))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND NOT (json_type(t.metadata, ?12) IS NOT NULL))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) = 'text' AND (t.metadata ->> ?13) = ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND coalesce(json_type(t.metadata, ?12) IN ('integer', 'real') AND (t.metadata ->> ?13) >= ?14, 0))
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '' AND t.session_id = ?12 AND t.session_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND (t.user_id = ?11 AND t.user_id <> '')
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.tags, t.created_at, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate, t.terms, t.ntok FROM (
					SELECT procedural_fts.rowid AS pk, t.id AS id, CASE WHEN ?8 OR t.terms IS NULL THEN engram_bm25_text(?7, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, ''))
						ELSE engram_bm25(?7, t.terms, t.ntok) END AS score
					FROM procedural_fts CROSS JOIN procedural_memory t ON t.pk = procedural_fts.rowid
					WHERE procedural_fts MATCH ?1 AND procedural_fts.rowid >= ?6 AND t.agent_id = ?2 AND t.created_at >= ?3 AND t.created_at < ?4
						AND (?5 = '' OR EXISTS (SELECT 1 FROM json_each(t.tags) g WHERE g.value IN (SELECT value FROM json_each(?5)))) AND 1 AND 1 /*scope*/
					ORDER BY score DESC, id LIMIT ?9) b
				CROSS JOIN procedural_memory t ON t.pk = b.pk
				ORDER BY b.score DESC, b.id
;

SELECT t.pk, t.id, t.terms, t.content FROM semantic_fts CROSS JOIN semantic_memory t ON t.pk = semantic_fts.rowid
		WHERE semantic_fts MATCH ?1 AND t.agent_id = ?2 AND t.pk <> ?3
;

SELECT t.pk, t.name || ': ' || t.description, t.pk IN (SELECT rowid FROM vec_procedural) FROM procedural_memory t
;

SELECT t.pk, t.name || ': ' || t.description, t.tags, t.success_rate * t.resonance, t.updated_at FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.name || ': ' || t.description, t.tags, t.success_rate * t.resonance, t.updated_at, t.retrievals, 1 + t.use_count * t.success_rate FROM json_each(?1) j CROSS JOIN procedural_memory t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.subject || ' ' || t.predicate || ' ' || t.object, 0.5, t.updated_at FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.pk, t.subject || ' ' || t.predicate || ' ' || t.object, 0.5, t.updated_at, t.retrievals, t.strength FROM json_each(?1) j CROSS JOIN facts t ON t.pk = CAST(j.value AS INTEGER)
;

SELECT t.terms FROM document_chunks t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms FROM episodic_log t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms FROM facts t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms FROM procedural_memory t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms FROM semantic_memory t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms FROM session_snapshots t WHERE t.agent_id = ? AND t.terms IS NOT NULL
;

SELECT t.terms, coalesce(t.content, '') FROM episodic_log t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.content, '') FROM episodic_log t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, coalesce(t.content, ''), coalesce(t.tags, '') FROM semantic_memory t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.content, ''), coalesce(t.tags, '') FROM semantic_memory t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '') FROM procedural_memory t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '') FROM procedural_memory t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, '') FROM facts t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, '') FROM facts t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') FROM session_snapshots t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') FROM session_snapshots t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, '') FROM document_chunks t WHERE t.agent_id = ?
;

SELECT t.terms, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, '') FROM document_chunks t WHERE t.agent_id = ? AND t.terms IS NULL
;

SELECT t.terms, t.ntok, coalesce(t.content, '') FROM episodic_log t WHERE t.terms IS NOT NULL
;

SELECT t.terms, t.ntok, coalesce(t.content, ''), coalesce(t.tags, '') FROM semantic_memory t WHERE t.terms IS NOT NULL
;

SELECT t.terms, t.ntok, coalesce(t.name, ''), coalesce(t.description, ''), coalesce(t.pattern, ''), coalesce(t.tags, '') FROM procedural_memory t WHERE t.terms IS NOT NULL
;

SELECT t.terms, t.ntok, coalesce(t.subject, ''), coalesce(t.predicate, ''), coalesce(t.object, '') FROM facts t WHERE t.terms IS NOT NULL
;

SELECT t.terms, t.ntok, coalesce(t.summary, ''), coalesce((SELECT group_concat(value, ' ') FROM json_each(t.key_decisions)), ''), coalesce((SELECT group_concat(value ->> '$.content', ' ') FROM json_each(t.messages)), '') FROM session_snapshots t WHERE t.terms IS NOT NULL
;

SELECT t.terms, t.ntok, coalesce(t.title, ''), coalesce(t.heading, ''), coalesce(t.content, ''), coalesce(t.tags, '') FROM document_chunks t WHERE t.terms IS NOT NULL
;

SELECT term, doc FROM document_vocab
;

SELECT term, doc FROM episodic_vocab
;

SELECT term, doc FROM fact_vocab
;

SELECT term, doc FROM procedural_vocab
;

SELECT term, doc FROM semantic_vocab
;

SELECT term, doc FROM snapshot_vocab
;

SELECT value FROM meta WHERE key = ?
;

UPDATE document_chunks SET id = ?, source = ?, heading = ?, chunk = ?, title = ?, tags = ?, content = ?, content_hash = ?, sources = ?, created_at = ?, updated_at = ?, retrievals = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, content
;

UPDATE document_chunks SET source = ?, heading = ?, chunk = ?, sources = ?, updated_at = ? WHERE pk = ? AND agent_id = ?
;

UPDATE document_chunks SET source = ?, heading = ?, chunk = ?, title = ?, tags = ?, content = ?,
		content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE pk = ? AND agent_id = ? RETURNING pk, agent_id, id, content
;

UPDATE episodic_log AS t SET resonance = min(1, max(0,
		exp(-CAST(?3 AS REAL) * max(0, ?2 - t.created_at) / CAST(?4 AS REAL)) * (CAST(?5 AS REAL) + CAST(?6 AS REAL) * min(1.0, 0 / CAST(?7 AS REAL))
			+ CAST(?8 AS REAL) * 0.5)))
		WHERE t.agent_id = ?1
;

UPDATE episodic_log SET id = ?, content = ?, event_type = ?, task_id = ?, session_id = ?, cost = ?, duration_ns = ?, metadata = ?, created_at = ?, resonance = ?, retrievals = ?, terms = ?, ntok = ?, user_id = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, content
;

UPDATE episodic_log SET terms = ?, ntok = ? WHERE pk = ?
;

UPDATE extraction_rules SET active = ? WHERE agent_id = ? AND name = ?
;

UPDATE extraction_rules SET name = ?, pattern = ?, memory_type = ?, importance = ?, tags = ?, active = ?, created_at = ?, subject = ?, predicate = ?, object = ? WHERE agent_id = ? AND name = ?
;

UPDATE fact_aliases INDEXED BY fact_aliases_by_entity SET entity_key = ?3 WHERE agent_id = ?1 AND entity_key = ?2
;

UPDATE fact_aliases SET alias_key = ?, entity_key = ?, alias = ?, created_at = ? WHERE agent_id = ? AND alias_key = ?
;

UPDATE facts SET id = ?, subject = ?, predicate = ?, object = ?, subject_key = ?, predicate_key = ?, object_key = ?, valid_from = ?, valid_to = ?, created_at = ?, updated_at = ?, expired_at = ?, strength = ?, sources = ?, metadata = ?, retrievals = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, subject, predicate, object
;

UPDATE facts SET object_key = ?3 WHERE agent_id = ?1 AND object_key = ?2
;

UPDATE facts SET strength = min(?3, strength + ?4), sources = ?5, metadata = ?6,
			valid_from = min(valid_from, ?7), updated_at = ?8 WHERE agent_id = ?1 AND pk = ?2 RETURNING id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals
;

UPDATE facts SET subject_key = ?3 WHERE agent_id = ?1 AND subject_key = ?2
;

UPDATE facts SET valid_to = ?3, updated_at = ?4,
			expired_at = CASE WHEN CAST(?3 AS INTEGER) <= ?4 THEN coalesce(expired_at, ?4) END
		WHERE agent_id = ?1 AND pk = ?2 RETURNING id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals
;

UPDATE history SET before = ?, after = ?, form = NULL WHERE pk = ?
;

UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key >= ? AND key < ?
;

UPDATE procedural_memory
		SET success_rate = min(1.0, max(0.0, success_rate * ? + ?)), use_count = use_count + 1, updated_at = ?
		WHERE agent_id = ? AND id = ? RETURNING id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata
;

UPDATE procedural_memory AS t SET resonance = min(1, max(0,
		exp(-CAST(?3 AS REAL) * max(0, ?2 - t.updated_at) / CAST(?4 AS REAL)) * (CAST(?5 AS REAL) + CAST(?6 AS REAL) * min(1.0, t.use_count / CAST(?7 AS REAL))
			+ CAST(?8 AS REAL) * t.success_rate)))
		WHERE t.agent_id = ?1
;

UPDATE procedural_memory SET description = ?, pattern = ?, tags = ?, disabled = ?,
		updated_at = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, name, description
;

UPDATE procedural_memory SET id = ?, name = ?, description = ?, pattern = ?, success_rate = ?, use_count = ?, tags = ?, disabled = ?, created_at = ?, updated_at = ?, resonance = ?, retrievals = ?, terms = ?, ntok = ?, user_id = ?, session_id = ?, metadata = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, name, description
;

UPDATE procedural_memory SET terms = ?, ntok = ? WHERE pk = ?
;

UPDATE semantic_memory AS t SET resonance = min(1, max(0,
		exp(-CAST(?3 AS REAL) * max(0, ?2 - t.last_accessed_at) / CAST(?4 AS REAL)) * (CAST(?5 AS REAL) + CAST(?6 AS REAL) * min(1.0, t.access_count / CAST(?7 AS REAL))
			+ CAST(?8 AS REAL) * t.importance)))
		WHERE t.agent_id = ?1
;

UPDATE semantic_memory SET access_count = access_count + 1, last_accessed_at = ?
		WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))
;

UPDATE semantic_memory SET content = ?, summary_own = ?, importance = ?, tags = ?,
		content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE pk = ? RETURNING pk, agent_id, id, content
;

UPDATE semantic_memory SET content = ?, summary_own = ?, importance = ?, verified = ?,
		tags = ?, content_hash = ?, updated_at = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, content
;

UPDATE semantic_memory SET id = ?, content = ?, summary_own = ?, importance = ?, verified = ?, tags = ?, source = ?, content_hash = ?, created_at = ?, updated_at = ?, access_count = ?, last_accessed_at = ?, resonance = ?, merged_from = ?, promoted_at_count = ?, retrievals = ?, terms = ?, ntok = ?, user_id = ?, session_id = ?, metadata = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, content
;

UPDATE semantic_memory SET importance = ?, access_count = ?, tags = ?, merged_from = ?,
		updated_at = ?, terms = ?, ntok = ? WHERE pk = ?
;

UPDATE semantic_memory SET importance = ?, promoted_at_count = access_count, updated_at = ?
		WHERE pk = ?
;

UPDATE semantic_memory SET terms = ?, ntok = ? WHERE pk = ?
;

UPDATE session_snapshots SET id = ?, session_id = ?, messages = ?, summary = ?, key_decisions = ?, task_ids = ?, started_at = ?, ended_at = ?, total_cost = ?, total_tokens = ?, created_at = ?, retrievals = ? WHERE agent_id = ? AND id = ? RETURNING pk, agent_id, id, summary, key_decisions, messages
;

UPDATE session_snapshots SET terms = ?, ntok = ? WHERE pk = ?
;

UPDATE temp.history_ctx SET op = ?, reason = ?
;

UPDATE temp.history_ctx SET op = NULL, actor = ?, reason = ?, at = ?
;

UPDATE vector_pending SET attempts = attempts + 1, last_error = ?
				WHERE memory_type = ? AND pk = ?
;

UPDATE zettel_links SET source_type = ?, source_id = ?, target_type = ?, target_id = ?, link_type = ?, strength = ?, created_at = ? WHERE agent_id = ? AND source_type = ? AND source_id = ? AND target_type = ? AND target_id = ? AND link_type = ?
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "archive"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "archive" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "document_chunks"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "document_chunks" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "episodic_log"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "episodic_log" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "extraction_rules"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "extraction_rules" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "fact_aliases"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "fact_aliases" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "fact_predicates"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "fact_predicates" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "facts"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "facts" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "history"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "history" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "markdown_files"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "markdown_files" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "markdown_lines"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "markdown_lines" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "procedural_memory"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "procedural_memory" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "semantic_memory"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "semantic_memory" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "session_snapshots"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "session_snapshots" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "text_stats"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "text_stats" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "vector_pending"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "vector_pending" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
;

WITH RECURSIVE a(id) AS (
				SELECT min(agent_id) FROM "zettel_links"
				UNION ALL
				SELECT (SELECT min(agent_id) FROM "zettel_links" WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL)
			SELECT id FROM a WHERE id IS NOT NULL
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

WITH deg(k, n) AS (
					SELECT e.subject_key, count(*) FROM facts e INDEXED BY facts_out WHERE e.agent_id = ?1 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) GROUP BY e.subject_key
					UNION ALL
					SELECT e.object_key, count(*) FROM facts e INDEXED BY facts_in WHERE e.agent_id = ?1 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) GROUP BY e.object_key),
				top(k, n) AS (SELECT k, sum(n) AS n FROM deg GROUP BY k ORDER BY n DESC, k LIMIT ?4)
				SELECT k, coalesce((SELECT l.subject FROM facts l INDEXED BY facts_out WHERE l.agent_id = ?1 AND l.subject_key = k
			ORDER BY l.object_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1),
		(SELECT l.object FROM facts l INDEXED BY facts_in WHERE l.agent_id = ?1 AND l.object_key = k
			ORDER BY l.subject_key, l.valid_from, l.valid_to NULLS FIRST, l.pk LIMIT 1), k) FROM top ORDER BY n DESC, k
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE document_chunks SET retrievals = retrievals + j.r
		FROM j WHERE document_chunks.agent_id = ?1 AND document_chunks.id = j.id
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE episodic_log SET retrievals = retrievals + j.r
		FROM j WHERE episodic_log.agent_id = ?1 AND episodic_log.id = j.id
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE facts SET retrievals = retrievals + j.r
		FROM j WHERE facts.agent_id = ?1 AND facts.id = j.id
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE procedural_memory SET retrievals = retrievals + j.r
		FROM j WHERE procedural_memory.agent_id = ?1 AND procedural_memory.id = j.id
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE semantic_memory SET retrievals = retrievals + j.r, access_count = access_count + j.n, last_accessed_at = max(last_accessed_at, j.at)
		FROM j WHERE semantic_memory.agent_id = ?1 AND semantic_memory.id = j.id
;

WITH j(id, n, r, at) AS MATERIALIZED (
			SELECT value ->> '$.id', CAST(value ->> '$.n' AS INTEGER), CAST(value ->> '$.r' AS INTEGER), CAST(value ->> '$.at' AS INTEGER)
			FROM json_each(?2))
		UPDATE session_snapshots SET retrievals = retrievals + j.r
		FROM j WHERE session_snapshots.agent_id = ?1 AND session_snapshots.id = j.id
;

WITH n(k) AS MATERIALIZED (SELECT value FROM json_each(?4))
			SELECT e.subject_key, e.object_key, e.predicate, e.id, e.valid_from, e.valid_to
			FROM n CROSS JOIN facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = n.k AND +e.object_key IN n AND e.object_key <> e.subject_key
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3)
			ORDER BY e.subject_key, e.object_key, lower(e.predicate), e.valid_from, e.id LIMIT ?5
;

WITH nb(k) AS (SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = '' ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		SELECT e.object_key AS k, 1 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = ''
;

WITH nb(k) AS (SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = '' UNION SELECT e.subject_key AS k FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = '' ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		SELECT e.object_key AS k, 1 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = '' UNION ALL SELECT e.subject_key AS k, 0 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.subject_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = ''
;

WITH nb(k) AS (SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5 ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		SELECT e.object_key AS k, 1 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5
;

WITH nb(k) AS (SELECT e.object_key AS k FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5 UNION SELECT e.subject_key AS k FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5 ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		SELECT e.object_key AS k, 1 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_out
			WHERE e.agent_id = ?1 AND e.subject_key = ?4 AND e.object_key <> ?4 AND e.object_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5 UNION ALL SELECT e.subject_key AS k, 0 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.subject_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND e.predicate_key = ?5
;

WITH nb(k) AS (SELECT e.subject_key AS k FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = '' ORDER BY k LIMIT ?6),
		last(k) AS (SELECT max(k) FROM nb)
		SELECT e.subject_key AS k, 0 AS out, e.id, e.subject, e.predicate, e.object, e.valid_from, e.valid_to, e.created_at, e.expired_at, e.strength, e.sources, e.metadata, e.retrievals FROM facts e INDEXED BY facts_in
			WHERE e.agent_id = ?1 AND e.object_key = ?4 AND e.subject_key <> ?4 AND e.subject_key <= (SELECT k FROM last)
				AND e.valid_from <= ?2 AND (e.valid_to IS NULL OR e.valid_to > ?3) AND ?5 = ''
;

WITH r(agent_id, docs, tokens) AS (
			SELECT agent_id, count(*), sum(ntok) FROM (SELECT agent_id, ntok FROM semantic_memory UNION ALL SELECT agent_id, ntok FROM episodic_log UNION ALL SELECT agent_id, ntok FROM procedural_memory UNION ALL SELECT agent_id, ntok FROM session_snapshots UNION ALL SELECT agent_id, ntok FROM facts UNION ALL SELECT agent_id, ntok FROM document_chunks) GROUP BY agent_id)
		SELECT coalesce(s.agent_id, r.agent_id), coalesce(s.docs, 0), coalesce(s.tokens, 0), coalesce(r.docs, 0), coalesce(r.tokens, 0)
		FROM r FULL JOIN text_stats s ON s.agent_id = r.agent_id
		WHERE coalesce(s.docs, 0) <> coalesce(r.docs, 0) OR coalesce(s.tokens, 0) <> coalesce(r.tokens, 0)
;

