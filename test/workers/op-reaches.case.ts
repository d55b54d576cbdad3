// How each transport reaches each operation a client may run: its route,
// the socket's op frame, MCP's method (or why one has none); the session
// each is prepared with is op-reach.ts's. Keyed by the table's names, so a
// new operation must say how each transport reaches it before the tests
// using this typecheck: the transports' comparison
// (transports-table.test.ts) and the scopes' matrix (scopes-matrix.test.ts).

import { toolCalls } from "../../src/messages/build";
import type { OperationName } from "../../src/session/operations";
import { send } from "./helpers";
import type { Prepared, Reach } from "./op-reach";

export {
  type Input,
  type McpResult,
  type Prepared,
  prepare,
  type Reach,
  releaseHeldTasks
} from "./op-reach";

const NO_TASK_ROUTE =
  "tasks are MCP's (tools/call with `task`, tasks/*); HTTP has POST …/tools/:tool and runs";
const taskStatus = (v: unknown) => (v as { status: string }).status;

const KEY = "/environment/t/k";
const step = toolCalls({ name: "note", arguments: { text: "a" } });

const get = (path: string) => (p: Prepared) => p.s.call(path);
const post =
  (path: string, body: (p: Prepared) => unknown, method = "POST") =>
  (p: Prepared) =>
    p.s.call(path, send(method, body(p)));

export const INTERNAL =
  "the server's own protocols run it (creation, forks, a token's signing)";

export const REACHES: Record<OperationName, Reach | typeof INTERNAL> = {
  create: INTERNAL,
  expectUse: INTERNAL,
  forkBegin: INTERNAL,
  forkChunk: INTERNAL,
  forkEnd: INTERNAL,
  importBegin: INTERNAL,
  importChunk: INTERNAL,
  importEnd: INTERNAL,
  importAbort: INTERNAL,
  status: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("") },
    mcp: "MCP has no status method; its server reads the status for itself",
    compare: "answer"
  },
  destroy: {
    environment: "lab",
    input: () => ({}),
    http: {
      send: (p) => p.s.call("", { method: "DELETE" }),
      answer: () => ({ deleted: true })
    },
    mcp: "an MCP client does not end its Roost session (405)",
    compare: "answer"
  },
  events: {
    environment: "lab",
    input: () => ({ after: 0, limit: 10 }),
    http: { send: get("/events?after=0&limit=10") },
    mcp: "MCP has no event log",
    compare: "answer"
  },
  reset: {
    environment: "lab",
    input: () => ({}),
    http: { send: post("/reset", () => ({})) },
    mcp: "the environment's MCP server resets at initialize",
    compare: "answer"
  },
  step: {
    environment: "lab",
    input: () => ({ action: step }),
    http: { send: post("/step", () => ({ action: step })) },
    mcp: "MCP calls one tool at a time (tools/call is `call`)",
    compare: "answer"
  },
  call: {
    environment: "lab",
    input: () => ({ tool: "bump", arguments: {} }),
    http: { send: post("/tools/bump", () => ({ arguments: {} })) },
    mcp: {
      method: "tools/call",
      params: () => ({ name: "bump", arguments: {} }),
      answer: (r) => r.content?.[0]?.text,
      value: (v) => (v as { content: string }).content
    },
    compare: "answer"
  },
  tools: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/tools") },
    mcp: {
      method: "tools/list",
      params: () => ({}),
      answer: (r) => r.tools?.map((t) => t.name),
      value: (v) =>
        (v as { tools: { function: { name: string } }[] }).tools.map(
          (t) => t.function.name
        )
    },
    compare: "answer"
  },
  readStore: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k" }),
    http: { send: get("/environment?tool=t&name=k") },
    mcp: {
      method: "resources/read",
      params: () => ({ uri: "roost://environment/t/k" }),
      answer: (r) =>
        (JSON.parse(r.contents?.[0]?.text ?? "{}") as { entries: unknown })
          .entries,
      value: (v) => (v as { entries: unknown }).entries
    },
    compare: "answer"
  },
  storeKeys: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/environment/keys") },
    mcp: {
      method: "resources/list",
      params: () => ({}),
      answer: (r) => r.resources?.map((x) => x.name),
      value: (v) =>
        (v as { keys: { tool: string; name: string }[] }).keys.map(
          (k) => `${k.tool}/${k.name}`
        )
    },
    compare: "answer"
  },
  addEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k", objects: [{ b: 2 }] }),
    http: { send: post(KEY, () => ({ objects: [{ b: 2 }] })) },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  replaceEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k", index: 0, objects: [{ a: 9 }] }),
    http: { send: post(`${KEY}/0`, () => ({ objects: [{ a: 9 }] }), "PUT") },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  removeEntry: {
    environment: "lab",
    input: () => ({ tool: "t", name: "k" }),
    http: { send: (p) => p.s.call(KEY, { method: "DELETE" }) },
    mcp: "MCP's resources are read-only",
    compare: "answer"
  },
  issueToken: INTERNAL,
  modelAdmit: INTERNAL,
  modelRecord: INTERNAL,
  modelCalls: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/model/calls") },
    mcp: "the model's calls are a trainer's read, over HTTP",
    compare: "answer"
  },
  revokeTokens: {
    environment: "lab",
    input: () => ({ scope: "observe" }),
    http: {
      send: post("/tokens/revoke", () => ({ scope: "observe" })),
      answer: () => ({ scope: "observe" })
    },
    mcp: "revoking is the session owner's, not an MCP client's",
    compare: "effects"
  },
  readHidden: {
    environment: "lab",
    scope: "grade",
    before: { action: toolCalls({ name: "secret", arguments: {} }) },
    input: () => ({}),
    http: { send: get("/hidden") },
    mcp: "the hidden store is never an MCP resource",
    compare: "answer"
  },
  rescore: {
    environment: "regraded",
    scope: "grade",
    before: { action: toolCalls({ name: "guess", arguments: { n: 7 } }) },
    input: () => ({ rubric: "rubric" }),
    http: { send: post("/rescore", () => ({ rubric: "rubric" })) },
    mcp: "re-scoring is a grader's, over HTTP, not an MCP client's",
    compare: "answer"
  },
  readState: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/state") },
    mcp: "the state is not an MCP resource",
    compare: "answer"
  },
  patchState: {
    environment: "lab",
    input: () => ({ key: "count", value: 5 }),
    http: { send: post("/state", () => ({ key: "count", value: 5 }), "PATCH") },
    mcp: "the state is not an MCP resource",
    compare: "answer"
  },
  messages: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/messages") },
    mcp: "the transcript is not an MCP resource",
    compare: "answer"
  },
  frame: {
    environment: "lab",
    input: () => ({}),
    http: { send: get("/frame") },
    mcp: "the frame is not an MCP resource",
    compare: "answer"
  },
  startRun: {
    environment: "forest",
    input: () => ({ prompt: "multi" }),
    http: { send: post("/runs", () => ({ prompt: "multi" })) },
    mcp: "MCP clients run their own loop",
    compare: "shape"
  },
  startChat: {
    environment: "forest",
    input: () => ({ prompt: "multi", chat_id: "c1" }),
    http: {
      // useChat's body: the prompt is its last user message's text.
      send: post("/chat", () => ({
        id: "c1",
        messages: [
          { id: "u1", role: "user", parts: [{ type: "text", text: "multi" }] }
        ],
        trigger: "submit-message"
      }))
    },
    mcp: "MCP clients run their own loop",
    compare: "effects"
  },
  readRun: {
    environment: "forest",
    withRun: true,
    input: (p) => ({ run_id: p.runId, wait: 30 }),
    http: { send: (p) => p.s.call(`/runs/${p.runId}?wait=30`) },
    mcp: "MCP clients run their own loop",
    compare: "answer"
  },
  cancelRun: {
    environment: "forest",
    withRun: true,
    input: (p) => ({ run_id: p.runId }),
    http: {
      send: (p) => p.s.call(`/runs/${p.runId}/cancel`, send("POST", {}))
    },
    mcp: "MCP clients run their own loop",
    compare: "shape"
  },
  startTask: {
    environment: "lab",
    input: () => ({ tool: "bump", arguments: {} }),
    http: NO_TASK_ROUTE,
    mcp: {
      method: "tools/call",
      params: () => ({ name: "bump", arguments: {}, task: {} }),
      answer: (r) => r.task?.status,
      value: taskStatus
    },
    compare: "shape"
  },
  readTask: {
    environment: "lab",
    withTask: "ended",
    input: (p) => ({ task_id: p.taskId }),
    http: NO_TASK_ROUTE,
    mcp: {
      method: "tasks/get",
      params: (p) => ({ taskId: p.taskId }),
      answer: (r) => r.status,
      value: taskStatus
    },
    compare: "shape"
  },
  listTasks: {
    environment: "lab",
    withTask: "ended",
    input: () => ({}),
    http: NO_TASK_ROUTE,
    mcp: {
      method: "tasks/list",
      params: () => ({}),
      answer: (r) => r.tasks?.map((t) => t.status),
      value: (v) => (v as { tasks: { status: string }[] }).tasks.map(taskStatus)
    },
    compare: "shape"
  },
  updateTask: {
    environment: "lab",
    withTask: "ended",
    input: (p) => ({ task_id: p.taskId, input_responses: {} }),
    http: NO_TASK_ROUTE,
    mcp: "tasks/update is the tasks extension's (2026-07-28), whose answer is an empty acknowledgement",
    compare: "shape"
  },
  answerClient: {
    environment: "lab",
    input: () => ({ id: "roost-ask-none", answer: { result: {} } }),
    http: "MCP's: a client's answer to what a tool asked it mid-call",
    mcp: "a JSON-RPC response the client POSTs (answered 202), not a method",
    compare: "answer"
  },
  mcpClient: {
    environment: "lab",
    input: () => ({ log_level: "info" }),
    http: "MCP's: what a client of the handshake era declared and set",
    mcp: {
      method: "logging/setLevel",
      params: () => ({ level: "info" }),
      answer: (r) => r,
      value: (v) => v
    },
    compare: "answer"
  },
  cancelTask: {
    environment: "lab",
    withTask: "held",
    input: (p) => ({ task_id: p.taskId }),
    http: NO_TASK_ROUTE,
    mcp: {
      method: "tasks/cancel",
      params: (p) => ({ taskId: p.taskId }),
      answer: (r) => r.status,
      value: taskStatus
    },
    compare: "shape"
  }
};
