// e2e.mjs drives engram's MCP server with the official TypeScript SDK's
// client, and prints one line of JSON: the verdict that mcpserver's Go test
// (TestTypeScriptClient) checks.
//
//   node e2e.mjs stdio <command> [args...]   start the server as a subprocess
//   node e2e.mjs http <url> [token]          connect over streamable HTTP
//
// It lists the tools, calls each with good arguments and checks what comes
// back, makes bad calls that must be tool errors (isError) while the
// session goes on, and reads the resources.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const verdict = { transport: mode, tools: [], calls: {}, bad: {}, resources: [], failures: [] };
const fail = (msg) => verdict.failures.push(msg);

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: rest, env: { ...process.env }, stderr: "inherit" });
  }
  if (mode === "http") {
    const headers = rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {};
    return new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
  }
  throw new Error(`unknown mode ${mode}`);
}

// call calls a tool and returns its structured content (or its text),
// recording whether it was a tool error.
async function call(name, args, key = name) {
  const res = await client.callTool({ name, arguments: args });
  verdict.calls[key] = res.isError ? "error: " + (res.content?.[0]?.text ?? "") : "ok";
  if (res.isError) fail(`${key}: tool error: ${res.content?.[0]?.text}`);
  return res.structuredContent ?? res.content?.[0]?.text;
}

// bad makes a call that must be a tool error.
async function bad(key, name, args) {
  try {
    const res = await client.callTool({ name, arguments: args });
    verdict.bad[key] = res.isError === true;
    if (!res.isError) fail(`${key}: not a tool error: ${JSON.stringify(res)}`);
  } catch (e) {
    verdict.bad[key] = false;
    fail(`${key}: a protocol error instead of a tool error: ${e.message}`);
  }
}

function expect(cond, msg) {
  if (!cond) fail(msg);
}

const client = new Client({ name: "engram-e2e", version: "1.0.0" });
try {
  await client.connect(transport());
  const { tools } = await client.listTools();
  verdict.tools = tools.map((t) => t.name).sort();
  for (const t of tools) {
    expect(t.inputSchema?.additionalProperties === false, `${t.name}: input schema allows other properties`);
  }

  const remembered = await call("remember", { content: "The deploy runs on Fridays", importance: 0.8, tags: ["ops"] });
  expect(typeof remembered?.id === "string" && remembered.id.length > 0, "remember: no id");
  const found = await call("search", { query: "deploy", limit: 5 });
  expect(found?.results?.length === 1 && found.results[0].id === remembered?.id, `search: ${JSON.stringify(found)}`);
  const recalled = await call("recall", { query: "when does the deploy run?" });
  expect(recalled?.admitted?.length >= 1, `recall: ${JSON.stringify(recalled)}`);
  const block = await call("context", { query: "deploy", max_tokens: 500 });
  expect(typeof block === "string" && block.includes("Fridays"), `context: ${block}`);
  const logged = await call("log_event", { content: "shipped version two", type: "task-completed", task_id: "t-1" });
  expect(typeof logged?.id === "string", "log_event: no id");
  const fact = await call("add_fact", { subject: "Ada", predicate: "works at", object: "Acme" });
  expect(fact?.action === "insert", `add_fact: ${JSON.stringify(fact)}`);
  const graph = await call("query_graph", { entity: "Ada", direction: "out" });
  expect(graph?.facts?.length === 1 && graph.facts[0].object === "Acme", `query_graph: ${JSON.stringify(graph)}`);
  const recent = await call("list_recent", { kind: "episodic", limit: 5 });
  expect(recent?.items?.length === 1 && recent.items[0].content === "shipped version two", `list_recent: ${JSON.stringify(recent)}`);

  const { resources } = await client.listResources();
  verdict.resources = resources.map((r) => r.uri).sort();
  const md = await client.readResource({ uri: "engram://default/memory.md" });
  expect(md.contents?.[0]?.text?.includes("Fridays"), `memory.md: ${JSON.stringify(md)}`);
  const sum = await client.readResource({ uri: "engram://default/summary" });
  const summary = JSON.parse(sum.contents?.[0]?.text ?? "{}");
  expect(summary.kinds?.find((k) => k.type === "semantic")?.count === 1, `summary: ${JSON.stringify(summary)}`);

  // The tools of memories by ID and of facts, on another agent.
  const agent = "second";
  const added = await call("add_memories", { agent, memories: [
    { type: "semantic", content: "Staging deploys run nightly", tags: ["ops"] },
    { type: "fact", subject: "Ada", predicate: "lives in", object: "London" },
  ] });
  expect(added?.memories?.length === 2 && added.memories[1].action === "insert", `add_memories: ${JSON.stringify(added)}`);
  const noteId = added?.memories?.[0]?.id;
  const got = await call("get_memory", { agent, id: noteId });
  expect(got?.type === "semantic" && got.memory?.content === "Staging deploys run nightly", `get_memory: ${JSON.stringify(got)}`);
  const listed = await call("list_memories", { agent, limit: 10 });
  expect(listed?.memories?.length === 2 && !listed.next_cursor, `list_memories: ${JSON.stringify(listed)}`);
  const updated = await call("update_memory", { agent, id: noteId, importance: 0.9 });
  expect(updated?.memory?.importance === 0.9, `update_memory: ${JSON.stringify(updated)}`);
  const asserted = await call("add_facts", { agent, facts: [{ subject: "Ada", predicate: "lives in", object: "Paris" }] });
  expect(asserted?.facts?.[0]?.action === "supersede", `add_facts: ${JSON.stringify(asserted)}`);
  const slot = await call("get_facts", { agent, entity: "Ada", predicate: "lives in", history: true });
  expect(slot?.facts?.map((f) => f.object).join() === "London,Paris", `get_facts: ${JSON.stringify(slot)}`);
  await call("delete_memory", { agent, id: noteId });
  // A user's memories, scoped searches, and forgetting the user.
  await call("add_memories", { agent, memories: [
    { type: "semantic", content: "Ada prefers tea", user_id: "ada" },
    { type: "semantic", content: "Bob prefers tea too", user_id: "bob" },
  ] }, "add_memories of users");
  const adas = await call("search", { agent, query: "tea", user_id: "ada" }, "search of a user");
  expect(adas?.results?.length === 1 && adas.results[0].content === "Ada prefers tea", `search of ada: ${JSON.stringify(adas)}`);
  const forgot = await call("forget_user", { agent, user_id: "ada" });
  expect(forgot?.deleted === 1, `forget_user: ${JSON.stringify(forgot)}`);
  const bobs = await call("list_memories", { agent, filter: { user_id: "bob" } }, "list of a user");
  expect(bobs?.memories?.length === 1, `bob's after forgetting ada: ${JSON.stringify(bobs)}`);
  const erased = await call("forget_memories", { agent, filter: { user_id: "bob", metadata: { key: "kept", exists: false } } });
  expect(erased?.deleted === 1, `forget_memories: ${JSON.stringify(erased)}`);
  await bad("forget everything", "forget_memories", { agent });
  await bad("not its kind's field", "add_memories", { agent, memories: [{ type: "semantic", content: "x", pattern: "y" }] });

  await call("forget", { id: remembered?.id });
  const after = await call("search", { query: "deploy" }, "search after forget");
  expect(after?.results?.length === 0, `search after forget: ${JSON.stringify(after)}`);

  await bad("missing required", "remember", {});
  await bad("out of bounds", "remember", { content: "x", importance: 2 });
  await bad("wrong type", "search", { query: 42 });
  await bad("unknown property", "search", { query: "x", verbose: true });
  await bad("not in enum", "log_event", { content: "x", type: "party" });
  await bad("invalid agent", "remember", { content: "x", agent: "no such/agent" });
  await bad("not found", "forget", { id: "no-such-memory" });
  const still = await call("list_recent", { kind: "fact" }, "after bad calls");
  expect(still?.items?.length === 1, `the session after bad calls: ${JSON.stringify(still)}`);
} catch (e) {
  fail(`exception: ${e.stack ?? e}`);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(verdict) + "\n");
