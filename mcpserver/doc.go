// Package mcpserver serves engram's memory to language-model clients over
// the Model Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A [Server] holds the memories of many agents (an [Agents], such as
// engram's Store) and offers:
//
//   - tools: add_memories, get_memory, list_memories, update_memory,
//     delete_memory, add_facts and get_facts, named as httpapi's routes
//     of memories and facts are and answering with the same views of
//     memories (one per kind, its kind in "type"); search, recall and
//     context; forget_user; and the first tools, kept under their names: remember,
//     log_event, add_fact, forget, query_graph and list_recent (see
//     below). Each has a strict input schema; a bad argument is a tool
//     error (the result's IsError), never a closed session;
//   - resources: each agent's memory.md and summary, at
//     engram://{agent}/memory.md and engram://{agent}/summary.
//
// # Memories and facts
//
// add_memories stores one memory or a batch, each of any kind (type:
// semantic, episodic, procedural or fact, with that kind's fields only),
// in one transaction: all of them or, on any error, none
// ([engram.Memory.AddAll]). get_memory finds a memory of any kind by ID
// ([engram.Memory.Get]); list_memories pages through every kind, newest
// first, by the cursor each page returns ([engram.Memory.List]);
// update_memory changes what a memory's kind lets change (a semantic
// entry's content, summary, importance, verified and tags; a procedure's
// description, pattern, tags and disabled) and refuses, naming it, a
// field the kind does not have; episodes and facts are not edited.
// add_facts asserts one fact or a batch ([engram.Facts.AssertAll]);
// get_facts answers what holds now, what held at a time (as_of), what
// was believed at a time (known_at) and a slot's history.
//
// # Users, sessions and filters
//
// add_memories takes a memory's user, session and metadata (a semantic
// entry's and a procedure's of any JSON values, an episode's of
// strings); the views show them. search, recall, context and
// list_memories take user, session and filter, httpapi's filter: user,
// session, types, tags, since, until and a metadata condition tree
// ({"key": "lang", "eq": "go"}, {"and": […]}, {"or": […]}, {"not": …});
// a bad part is a tool error that names it ("filter.metadata.and[1].gt").
// forget_user erases one user's memories of the agent
// ([engram.Memory.ForgetUser]).
//
// The first tools stay, each the same operation as a new one with fewer
// arguments, so that clients written for them go on working: remember is
// add_memories of one semantic entry, log_event of one episode, add_fact
// is add_facts of one fact, forget is delete_memory (one handler),
// query_graph is get_facts of the facts that hold now, and list_recent
// lists one kind in that kind's own order (list_memories lists by time).
//
// A tool call names its agent in its agent argument, or uses the server's
// (Options.Agent). Reads never create an agent's memory: an agent with
// none answers as an empty one.
//
// # Transports
//
// [Server.ServeStdio] serves one client on standard input and output, as
// desktop clients start servers ("engram mcp"); [Server.HTTPHandler]
// serves MCP's streamable HTTP transport, which httpapi mounts at /mcp
// behind its bearer tokens. A token's agents reach the tools as the scopes
// of its auth.TokenInfo ([AgentScope], [AllAgentsScope]); a session without
// token information (stdio) may touch every agent.
//
// When a session ends, Run and ServeStdio flush the agents it wrote to
// ([engram.Memory.Flush]); [Server.Flush] does it on demand.
package mcpserver
