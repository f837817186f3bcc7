// Package httpapi serves engram's memory of many agents as an HTTP JSON
// API: the routes of seed 004's memory service, where a profile is an
// agent, and engram's own (context, history, export, import, backup,
// extraction rules). The OpenAPI 3.1 document at /openapi.json ([OpenAPI])
// describes every route and every answer; field names are snake_case and
// times RFC 3339.
//
//	GET    /health                    GET  /openapi.json
//	GET    /v1/profiles               DELETE /v1/profiles/{slug}
//	POST   /v1/ingest                 POST /v1/ingest/documents
//	POST   /v1/search                 POST /v1/context
//	GET    /v1/summary                GET  /v1/changes
//	POST   /v1/memories               GET  /v1/memories
//	GET    /v1/memories/{id}          PATCH /v1/memories/{id}  DELETE /v1/memories/{id}
//	GET    /v1/memories/{id}/links    POST /v1/memories/{id}/archive  POST /v1/memories/{id}/restore
//	GET    /v1/stats
//	POST   /v1/facts                  GET  /v1/facts
//	PUT    /v1/memory/{id}            DELETE /v1/memory/{id}
//	DELETE /v1/memory                 GET  /v1/memory/{id}/history
//	GET    /v1/rules                  POST /v1/rules     DELETE /v1/rules/{name}
//	GET    /v1/graph/triples          GET  /v1/graph/neighbors
//	GET    /v1/graph/paths            GET  /v1/graph/visualization
//	DELETE /v1/graph/triple/{id}
//	GET    /v1/export                 POST /v1/import    POST /v1/backup
//	       /mcp                       (Options.MCP: see mcpserver)
//	GET    /ui/                       the web console (package console); / leads to it
//
// A request names its agent by the profile field of its JSON body or the
// profile query parameter (or profileId, seed 004's alias; both given
// must agree); without one it is engram.DefaultAgent's. Seed 004's
// camelCase query parameters are aliases of the snake_case ones
// (maxDepth of max_depth, includeHistory of include_history, …). A read
// of an agent that has no memory answers as an empty memory and creates
// nothing; the first write creates the agent.
//
// # Memories and facts
//
// POST /v1/memories adds one memory (the body's fields) or a batch
// (memories), each of any kind: semantic, episodic, procedural or fact,
// named in type (or kind), with that kind's fields only. Every item is
// checked before anything is written, and a batch is stored in one
// transaction, whatever its kinds: all of it or, on any error, none
// ([engram.Memory.AddAll]). GET /v1/memories lists every kind, newest
// first, a page at a time (next_cursor), filtered by kind, tags, since
// and until ([engram.Memory.List]); GET /v1/memories/{id} answers with a
// memory of any kind in its kind's view ([engram.Memory.Get]); PATCH
// changes what the memory's kind lets change, and refuses, naming it, a
// field the kind does not have (PUT /v1/memory/{id}, seed 004's, stays,
// and changes a memory as PATCH does); DELETE erases it, as DELETE
// /v1/memory/{id} does. POST /v1/facts
// asserts one fact or a batch; GET /v1/facts answers what holds now,
// what held at a time (as_of), what was believed then (known_at), and a
// slot's history.
//
// POST /v1/ingest extracts with the agent's rules and LLM; an agent with
// neither keeps the messages as episodes, and the answer says so
// (episodes, note). Seed 004's reasoning and feedback are accepted and
// ignored, and its metadata is kept on those episodes.
//
// # Safe to expose
//
// With [Options].Tokens, every route but /health and /openapi.json needs
// a bearer token, compared in constant time, and a token may be limited to
// some agents. Without tokens the server answers only on loopback
// ([Server.Serve] refuses other addresses, and requests must name a
// loopback host, which defeats DNS rebinding). Bodies are bounded
// ([Options].MaxBodyBytes, MaxImportBytes) and must be declared JSON;
// [Server.HTTPServer] bounds headers and every timeout. CORS is off unless
// [Options].AllowedOrigins names origins, and other sites' unsafe requests
// are refused (http.CrossOriginProtection). Document ingestion reads only
// under [Options].DocumentRoot and backups write only into
// [Options].BackupDir; each route is off without its directory. A backup
// holds the one agent's memory, even where agents share a file
// ([engram.Memory.BackupAgent]).
//
// # Errors
//
// Every error is JSON, {"error":{"code":"...","message":"..."}}, with a
// stable code, /mcp's refusals included: invalid_argument, unauthorized, forbidden, not_found,
// method_not_allowed, conflict, too_large, unsupported_media, internal,
// upstream, unavailable (see [CodeInvalidArgument] and the others).
// engram's errors are classified with errors.Is and errors.As; what fails
// inside (a database, a file system) is logged, and the client gets only
// the code.
//
// # Shutdown
//
// [Server.Serve] shuts down when its context is done: it stops accepting,
// lets running requests finish, and flushes every agent written to
// ([engram.Memory.Flush]).
package httpapi
