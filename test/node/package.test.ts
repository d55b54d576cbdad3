// The package as a user gets it: `npm pack`, the tarball installed into a
// new project, then used the three ways docs/01-getting-started.md says: the client and the
// core from plain Node, both typechecked against the shipped declarations,
// and a worker of the user's own built by wrangler.
import { execFile } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const version = (name: string): string =>
  JSON.parse(
    readFileSync(join(root, "node_modules", name, "package.json"), "utf8")
  ).version;

let work = "";
let project = "";
let packed: string[] = [];

const write = (file: string, text: string) => {
  mkdirSync(join(project, file, ".."), { recursive: true });
  writeFileSync(join(project, file), text);
};
// tsc reports on stdout; a failure shows what it said.
const typecheck = (config: string, cwd: string) =>
  run(process.execPath, [tsc, "-p", config], { cwd }).catch(
    (e: { stdout?: string }) => {
      throw new Error(`tsc -p ${config}:\n${e.stdout}`);
    }
  );
const node = (file: string, env: Record<string, string> = {}) =>
  run(process.execPath, [file], {
    cwd: project,
    env: { ...process.env, ...env }
  });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "roost-package-"));
  project = join(work, "app");
  mkdirSync(project);
  // The builds `npm pack` would run through prepare, minus the inspector's:
  // rewriting dist/inspector would reload the wrangler dev the other tests
  // share. The inspector ships as `npm install` (prepare) built it.
  await run(process.execPath, [join(root, "scripts", "build-package.mjs")]);
  await run("npm", ["run", "--silent", "build:cli"], { cwd: root });
  const { stdout } = await run(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
    { cwd: root }
  );
  const [info] = JSON.parse(stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = info!.files.map((f) => f.path);
  write(
    "package.json",
    JSON.stringify({ name: "app", private: true, type: "module" })
  );
  await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      join(work, info!.filename),
      `@cloudflare/workers-types@${version("@cloudflare/workers-types")}`,
      `@types/node@${version("@types/node")}`,
      // Node 20 has no WebSocket of its own: users pass the ws package's.
      `ws@${version("ws")}`,
      // roost-edge/react's peer, and what an app renders it with.
      `react@${version("react")}`,
      `react-dom@${version("react-dom")}`,
      `@types/react@${version("@types/react")}`
    ],
    { cwd: project }
  );
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A worker project's tsconfig, as a user's would be: strict, Workers' types. */
const WORKER_TSCONFIG = JSON.stringify({
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

describe("the packed package", () => {
  it("ships built JavaScript, declarations and sources, and nothing a command wrote", () => {
    for (const file of [
      "dist/index.js",
      "dist/core.js",
      "dist/client.js",
      "dist/react.js",
      "dist/zod-lean.js",
      "dist/validate.js",
      "dist/code.js",
      "dist/cli.js",
      "dist/types/index.d.ts",
      "dist/types/core.d.ts",
      "dist/types/client/index.d.ts",
      "dist/types/react/index.d.ts",
      "dist/types/validate/index.d.ts",
      "dist/types/code/index.d.ts",
      // What `roost-edge dev` serves at /.
      "dist/inspector/index.html",
      "dist/inspector/app.js",
      "src/index.ts",
      "README.md",
      "package.json"
    ])
      expect(packed).toContain(file);
    const stray = packed.filter(
      (f) =>
        f.endsWith(".test.ts") ||
        f.endsWith(".jsonl") ||
        // The chat app is built for the catalog example, which the package
        // does not ship: `roost-edge dev` serves the inspector alone.
        /^(test|bench|examples|inspector|node_modules|\.wrangler|\.roost|dist\/inspector\/chat)\//.test(
          f
        )
    );
    expect(stray).toEqual([]);
  });

  it("runs from plain Node: the client against a server, the core in memory", async () => {
    write(
      "plain.mjs",
      `import { connectSession, createClient, toChatMessages } from "roost-edge/client";
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
`
    );
    const { stdout } = await node("plain.mjs", {
      ROOST_URL: inject("baseUrl")
    });
    const seen = JSON.parse(stdout);
    expect(seen.id).toMatch(/\S/);
    expect(seen.status).toBeDefined();
    // The shipped client forks: the copy steps, its source does not.
    expect(seen.forked).toEqual({ steps: 1, source: 0 });
    // Its socket step: every event once, seqs consecutive, the step last.
    const seqs = seen.events.map((e: { seq: number }) => e.seq);
    expect(seqs.length).toBeGreaterThan(3);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => seqs[0] + i));
    expect(seen.events.at(-1).type).toBe("step");
    expect(seen.local).toMatchObject({ reward: 1, done: true });
    // The packed client's iterators: a page per message at limit 1, the
    // same transcript as one large read.
    expect(seen.transcript.whole.length).toBeGreaterThan(3);
    expect(seen.transcript.pages).toBe(seen.transcript.whole.length);
    expect(seen.transcript.iterated).toEqual(seen.transcript.whole);
    // The chat format ships too: arguments as the JSON string OpenAI's format carries.
    expect(seen.chat[0].tool_calls[0].function.arguments).toBe(
      '{"words":"hi"}'
    );
  });

  it("validates an environment with roost-edge/validate, locally and on a server", async () => {
    write(
      "validate.mjs",
      `import { defineEnvironment, toolCalls } from "roost-edge/core";
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
`
    );
    const { stdout } = await node("validate.mjs", {
      ROOST_URL: inject("baseUrl")
    });
    const seen = JSON.parse(stdout);
    expect(seen.sound).toBe(true);
    expect(seen.table).toMatch(/^say\n {2}determinism +PASS/);
    expect(seen.table.trimEnd().endsWith("passed")).toBe(true);
    // Paying for the empty answer is what the floor is for.
    expect(seen.lenient).toEqual(["floor: empty answers"]);
    expect(seen.served).toEqual({ environment: "story", fork: "PASS" });
  });

  it("renders roost-edge/react's hook with the app's own React, connecting only once mounted", async () => {
    write(
      "react.mjs",
      `import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { useSession } from "roost-edge/react";

const Status = () => {
  const { connection, messages } = useSession({ baseUrl: process.env.ROOST_URL, sessionId: "s", token: "t" });
  return createElement("p", null, connection + " " + messages.length);
};
console.log(renderToString(createElement(Status)));
`
    );
    const { stdout } = await node("react.mjs", {
      ROOST_URL: inject("baseUrl")
    });
    // Server rendering runs no effects: no socket, the view as it starts.
    expect(stdout.trim()).toBe("<p>connecting 0</p>");
  });

  it("runs its command line: a rollout with the user's policy module, trajectories to stdout, a summary to stderr", async () => {
    // The policy imports the installed client, as a user's would.
    write(
      "my-policy.mjs",
      [
        'import { callTool } from "roost-edge/client";',
        "export const policy = (observations, tools, history) =>",
        '  callTool("call_" + history.length, "incr", {});'
      ].join("\n")
    );
    const { stdout, stderr } = await run(
      join(project, "node_modules", ".bin", "roost-edge"),
      [
        "rollout",
        "--url",
        inject("baseUrl"),
        "--env",
        "counter",
        "--episodes",
        "2",
        "--group-size",
        "2",
        "--policy",
        "./my-policy.mjs",
        "--out",
        "-"
      ],
      { cwd: project }
    );
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // One group of two: one reset, forked once.
    expect(
      lines.map((t) => [t.episode, t.error, t.group_id, t.group_index])
    ).toEqual([
      [0, null, 0, 0],
      [1, null, 0, 1]
    ]);
    expect(
      lines[0].actions.map(
        (a: { tool_calls: { function: { name: string } }[] }) =>
          a.tool_calls[0]?.function.name
      )
    ).toContain("incr");
    expect(stderr).toContain("Finished 2 episodes");
    expect(stderr).toContain("  trajectories  stdout");
  });

  // Strict, nodenext resolution and no skipLibCheck: a declaration that
  // failed to resolve would otherwise type as `any` and pass silently, which
  // the @ts-expect-error lines also catch.
  it("typechecks a Node consumer against the shipped declarations", async () => {
    write(
      "tsconfig.node.json",
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "DOM"],
          types: ["node"],
          strict: true,
          noEmit: true,
          skipLibCheck: false
        },
        files: ["consumer.ts", "hook.ts"]
      })
    );
    write(
      "consumer.ts",
      `import {
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
`
    );
    // The hook typed from the environment above, with a type-only import.
    write(
      "hook.ts",
      `import type { env } from "./consumer.js";
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
`
    );
    await typecheck("tsconfig.node.json", project);
    // tsc over the whole declaration graph: about 25 s on a busy 2-core machine.
  }, 120_000);

  it("builds a worker of the user's own with wrangler", async () => {
    write(
      "worker/index.ts",
      `import { createRoost, defineEnvironment } from "roost-edge";
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
`
    );
    write("worker/tsconfig.json", WORKER_TSCONFIG);
    write(
      "worker/wrangler.toml",
      `name = "app"
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
`
    );
    const cwd = join(project, "worker");
    await typecheck("tsconfig.json", cwd);
    await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", "out"], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" }
    });
    // Bundled from the package's dist/, whose source maps lead wrangler's
    // on into the shipped sources.
    const sources: string[] = JSON.parse(
      readFileSync(join(cwd, "out", "index.js.map"), "utf8")
    ).sources;
    expect(sources).toContain("../../node_modules/roost-edge/src/roost.ts");
    const js = readFileSync(join(cwd, "out", "index.js"), "utf8");
    expect(js).toMatch(/export\s*\{[^}]*\bSession\b/);
    // The alias docs/09-deploy.md gives: zod's messages in English only, its other 62
    // locales left out, though this worker imports `{ z }` itself.
    expect(js).toContain("Invalid input: expected");
    expect(js).not.toContain("Ungültige Eingabe");
  }, 120_000);

  it("builds a worker with the layers it names from roost-edge/layers/*, their operations typed, and none of the others", async () => {
    write(
      "layered/index.ts",
      `import { createRoost, defineEnvironment, type LayerOperations } from "roost-edge";
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
`
    );
    write("layered/tsconfig.json", WORKER_TSCONFIG);
    write(
      "layered/wrangler.toml",
      `name = "layered"
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
`
    );
    const cwd = join(project, "layered");
    await typecheck("tsconfig.json", cwd);
    await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", "out"], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" }
    });
    const sources: string[] = JSON.parse(
      readFileSync(join(cwd, "out", "index.js.map"), "utf8")
    ).sources;
    const layers = new Set(
      sources.flatMap((s) => s.match(/src\/layers\/([a-z-]+)\//)?.[1] ?? [])
    );
    // MCP and the statistics; OpenEnv, Aviary, chat, OAuth, re-scoring and
    // the OpenAPI document stay out of the bundle.
    expect([...layers].sort()).toEqual(["mcp", "task-stats"]);
  }, 120_000);
});
