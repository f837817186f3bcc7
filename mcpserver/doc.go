// Package mcpserver serves engram's memory to language-model clients over
// the Model Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A [Server] holds the memories of many agents (an [Agents], such as
// engram's Store) and offers:
//
//   - tools: remember, search, recall, context, forget, log_event,
//     add_fact, query_graph and list_recent, each with a strict input
//     schema; a bad argument is a tool error (the result's IsError), never a
//     closed session;
//   - resources: each agent's memory.md and summary, at
//     engram://{agent}/memory.md and engram://{agent}/summary.
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
