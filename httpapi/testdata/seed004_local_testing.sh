# 1. Start the memory service
npm start -w memory

# 2. Health check
curl http://localhost:4005/health

# 3. Ingest a memory
curl -X POST http://localhost:4005/v1/ingest \
  -H 'Content-Type: application/json' \
  -d '{
    "messages": [
      {"role": "user", "content": "I work at Anthropic as a senior engineer. I love working on AI safety."}
    ]
  }'

# 4. Search memories
curl -X POST http://localhost:4005/v1/search \
  -H 'Content-Type: application/json' \
  -d '{"query": "Where does the user work?"}'

# 5. View summary
curl http://localhost:4005/v1/summary

# 6. List profiles
curl http://localhost:4005/v1/profiles

# 7. Query semantic graph
curl "http://localhost:4005/v1/graph/triples?entity=User"

# 8. Get graph visualization
curl "http://localhost:4005/v1/graph/visualization?entity=User&maxDepth=2"

# 9. Find paths between entities
curl "http://localhost:4005/v1/graph/paths?from=User&to=Anthropic"

# 10. Update a memory
curl -X PUT http://localhost:4005/v1/memory/MEMORY_ID \
  -H 'Content-Type: application/json' \
  -d '{"content": "Updated content"}'

# 11. Delete a memory
curl -X DELETE "http://localhost:4005/v1/memory/MEMORY_ID"

# 12. Delete all memories for a profile
curl -X DELETE "http://localhost:4005/v1/memory?profile=default"

# 13. Ingest markdown documents from a directory
curl -X POST http://localhost:4005/v1/ingest/documents \
  -H 'Content-Type: application/json' \
  -d '{"path": "/path/to/markdown/folder", "profile": "docs"}'

# 14. Re-ingest same folder (should show skipped > 0, stored ≈ 0)
curl -X POST http://localhost:4005/v1/ingest/documents \
  -H 'Content-Type: application/json' \
  -d '{"path": "/path/to/markdown/folder", "profile": "docs"}'

# 15. Check source attribution
sqlite3 memory/memory.db "SELECT source, content FROM memory WHERE source IS NOT NULL LIMIT 5;"
