/**
 * @module What a user writes against the installed package, as
 * test/node/package.test.ts writes it into its project: Node programs, a
 * typed consumer and workers of the user's own.
 */

/** A worker project's tsconfig, as a user's would be: strict, Workers' types. */
export const WORKER_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    module: "ES2022",
    moduleResolution: "Bundler",
    lib: ["ES2023"],
    types: ["@cloudflare/workers-types"],
    strict: true,
    noEmit: true,
    skipLibCheck: true
  },
  include: ["."]
});

/** plain.mjs: Plain Node on the client and the core: a session forked and stepped over HTTP and the socket, its transcript paged, an environment run in memory; prints what it saw as one JSON line. */
export const PLAIN_NODE = `import { connectSession, createClient, toChatMessages } from "roost-edge/client";
import { createLocalSession, defineEnvironment, toolCalls } from "roost-edge/core";
import { WebSocket } from "ws";
import { z } from "zod";

const client = createClient({ baseUrl: process.env.ROOST_URL });
const session = await client.createSession({ environment: "counter" });
await session.reset();
const [copy] = await session.fork(1);
await copy.step({ tool_calls: [{ id: "c1", function: { name: "incr", arguments: {} } }] });
const forked = { steps: (await copy.status()).steps, source: (await session.status()).steps };

// The shipped socket client over the ws package: a step's events arrive as
// one batch message, and onEvent still sees them one at a time, in order.
const events = [];
const socket = connectSession({ baseUrl: process.env.ROOST_URL, sessionId: copy.id, token: copy.token, WebSocket, onEvent: (e) => events.push({ seq: e.seq, type: e.type }) });
await socket.step({ tool_calls: [{ id: "c2", function: { name: "incr", arguments: {} } }] });
socket.close();

// The shipped iterators follow cursors: pages of at most 1 KiB still yield
// the copy's whole transcript, once and in order.
let pages = 0;
for await (const _page of copy.pages.messages({ max_bytes: 1024, limit: 1 })) pages++;
const iterated = [];
for await (const m of copy.items.messages({ max_bytes: 1024 })) iterated.push(m.role);
const whole = (await copy.messages({ limit: 1000 })).messages.map((m) => m.role);
const transcript = { pages, iterated, whole };

const echo = defineEnvironment({
  name: "echo",
  description: "Says it back.",
  task: z.object({}).default({}),
  tools: (tool) => ({
    say: tool({
      description: "Say something.",
      input: z.object({ words: z.string() }),
      run: ({ words }, ctx) => {
        ctx.episode.end({ reward: 1 });
        return words;
      }
    })
  }),
  reset: () => "Say something."
});
const local = createLocalSession(echo);
await local.reset();
const out = await local.step(toolCalls({ name: "say", arguments: { words: "hi" } }));
const chat = toChatMessages([{ role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "say", arguments: { words: "hi" } } }] }]);
console.log(JSON.stringify({ id: session.id, status: (await session.status()).status, local: out, chat, forked, events, transcript }));
`;

/** validate.mjs: roost-edge/validate on an environment of its own (sound, and lenient about an empty answer) and on the server's story; prints the reports. */
export const VALIDATE = `import { defineEnvironment, toolCalls } from "roost-edge/core";
import { formatReport, validateEnvironment, validateServer } from "roost-edge/validate";
import { z } from "zod";

// Say the secret word: the oracle reads it from the task.
const say = (empty) => defineEnvironment({
  name: "say",
  description: "Say the word.",
  task: z.object({ word: z.string() }).default({ word: "plover" }),
  maxSteps: 3,
  tools: (tool) => ({
    say: tool({
      description: "Say a word; ends the episode.",
      input: z.object({ word: z.string() }),
      run: ({ word }, ctx) => {
        const right = word === ctx.task.word || (empty && word === "");
        ctx.episode.end({ reward: right ? 1 : 0 });
        return right ? "Right." : "Wrong.";
      }
    })
  }),
  reset: () => "Say the word.",
  validation: { oracle: (task) => () => toolCalls({ name: "say", arguments: { word: task.word } }) }
});
const sound = await validateEnvironment(say(false));
const lenient = await validateEnvironment(say(true));
const [served] = await validateServer({ url: process.env.ROOST_URL, names: ["story"], tasks: 1 });
console.log(JSON.stringify({
  sound: sound.ok,
  table: formatReport(sound),
  lenient: lenient.rows.filter((r) => r.status === "FAIL").map((r) => r.check),
  served: { environment: served.environment, fork: served.rows.find((r) => r.check === "determinism: fork").status }
}));
`;

/** react.mjs: roost-edge/react's hook rendered on the server with the app's own React. */
export const REACT_SSR = `import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { useSession } from "roost-edge/react";

const Status = () => {
  const { connection, messages } = useSession({ baseUrl: process.env.ROOST_URL, sessionId: "s", token: "t" });
  return createElement("p", null, connection + " " + messages.length);
};
console.log(renderToString(createElement(Status)));
`;

/** consumer.ts: A Node consumer typed against the shipped declarations; the @ts-expect-error lines fail if a type resolves to `any`. */
export const NODE_CONSUMER = `import {
  type ChatMessage,
  createClient,
  type GroupSummary,
  openaiPolicy,
  type Policy,
  type RoostSession,
  toChatMessages
} from "roost-edge/client";
import { defineEnvironment, defineState, type Message } from "roost-edge/core";
import { z } from "zod";

const client = createClient({ baseUrl: "http://127.0.0.1:8787" });
// @ts-expect-error baseUrl is a string
createClient({ baseUrl: 8787 });
export const open = async (): Promise<RoostSession> =>
  client.createSession({ environment: "counter" });

export const env = defineEnvironment({
  name: "typed",
  description: "Counts hits.",
  task: z.object({}).default({}),
  state: defineState({ tries: { type: z.number().default(0) } }),
  tools: (tool) => ({
    hit: tool({
      description: "Count a hit.",
      input: z.object({}),
      run: (_, ctx) => {
        const tries: number = ctx.state.get("tries");
        // @ts-expect-error tries is a number
        const wrong: string = ctx.state.get("tries");
        ctx.state.set("tries", tries + 1);
        return String(wrong);
      }
    })
  }),
  reset: () => "Go."
});
export const none: Message[] = [];
export const model: Policy = openaiPolicy({ baseUrl: "http://127.0.0.1:8000/v1", model: "m" });
// @ts-expect-error a model is required
openaiPolicy({ baseUrl: "http://127.0.0.1:8000/v1" });
export const chat: ChatMessage[] = toChatMessages(none);
export const groups = async (s: RoostSession): Promise<RoostSession[]> => s.fork(2);
export const flat = (g: GroupSummary): boolean => g.flat;
`;

/** hook.ts: The hook typed from NODE_CONSUMER's environment, with a type-only import. */
export const TYPED_HOOK = `import type { env } from "./consumer.js";
import { useSession } from "roost-edge/react";

export const Tries = (): number => {
  const session = useSession<typeof env>({ baseUrl: "http://127.0.0.1:8787", sessionId: "s", token: "t" });
  const tries: number | undefined = session.state?.tries;
  // @ts-expect-error tries is a number
  const wrong: string | undefined = session.state?.tries;
  void session.call("hit", {});
  // @ts-expect-error not a tool of the environment
  void session.call("miss", {});
  return (tries ?? 0) + session.messages.length + String(wrong).length;
};
`;

/** worker/index.ts: A worker of the user's own. */
export const OWN_WORKER = `import { createRoost, defineEnvironment } from "roost-edge";
import { z } from "zod";

const ping = defineEnvironment({
  name: "ping",
  description: "Answers pong.",
  task: z.object({}).default({}),
  tools: (tool) => ({
    ping: tool({ description: "Ping.", input: z.object({}), run: () => "pong" })
  }),
  reset: () => "Call ping."
});

const roost = createRoost({ environments: [ping] });
export const Session = roost.Session;
export default { fetch: roost.fetch };
`;

/** worker/wrangler.toml: OWN_WORKER's wrangler config, with the zod alias docs/09-deploy.md gives. */
export const OWN_WORKER_TOML = `name = "app"
main = "index.ts"
compatibility_date = "2026-04-26"

[[durable_objects.bindings]]
name = "SESSIONS"
class_name = "Session"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Session"]

[alias]
zod = "roost-edge/zod-lean"
`;

/** layered/index.ts: A worker naming two layers from roost-edge/layers/*, their operations typed. */
export const LAYERED_WORKER = `import { createRoost, defineEnvironment, type LayerOperations } from "roost-edge";
import { mcp } from "roost-edge/layers/mcp";
import { TaskStats, taskStats } from "roost-edge/layers/task-stats";
import { z } from "zod";

const ping = defineEnvironment({
  name: "ping",
  description: "Answers pong.",
  task: z.object({}).default({}),
  tools: (tool) => ({
    ping: tool({ description: "Ping.", input: z.object({}), run: () => "pong" })
  }),
  reset: () => "Call ping."
});

// MCP's operations, declared by its layer through the shipped declarations.
export const started: keyof LayerOperations = "startTask";
// @ts-expect-error not an operation of any layer imported here
export const chatting: keyof LayerOperations = "startChat";

const roost = createRoost({ environments: [ping], layers: [mcp(), taskStats()] });
export const Session = roost.Session;
export { TaskStats };
export default { fetch: roost.fetch };
`;

/** layered/wrangler.toml: LAYERED_WORKER's wrangler config. */
export const LAYERED_WORKER_TOML = `name = "layered"
main = "index.ts"
compatibility_date = "2026-04-26"

[[durable_objects.bindings]]
name = "SESSIONS"
class_name = "Session"

[[durable_objects.bindings]]
name = "TASK_STATS"
class_name = "TaskStats"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Session", "TaskStats"]

[alias]
zod = "roost-edge/zod-lean"
`;
