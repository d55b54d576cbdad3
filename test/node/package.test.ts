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
import {
  LAYERED_WORKER,
  LAYERED_WORKER_TOML,
  NODE_CONSUMER,
  OWN_WORKER,
  OWN_WORKER_TOML,
  PLAIN_NODE,
  REACT_SSR,
  TYPED_HOOK,
  VALIDATE,
  WORKER_TSCONFIG
} from "./helpers/package-programs";
import {
  installInto,
  packPackage,
  installedVersion as version
} from "./helpers/packed";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

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
  // The inspector ships as `npm install` (prepare) built it: rewriting
  // dist/inspector would reload the wrangler dev the other tests share.
  const { tarball, files } = await packPackage(work, { inspector: "as-built" });
  packed = files;
  write(
    "package.json",
    JSON.stringify({ name: "app", private: true, type: "module" })
  );
  await installInto(project, [
    tarball,
    `@cloudflare/workers-types@${version("@cloudflare/workers-types")}`,
    `@types/node@${version("@types/node")}`,
    // Node 20 has no WebSocket of its own: users pass the ws package's.
    `ws@${version("ws")}`,
    // roost-edge/react's peer, and what an app renders it with.
    `react@${version("react")}`,
    `react-dom@${version("react-dom")}`,
    `@types/react@${version("@types/react")}`
  ]);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

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
    write("plain.mjs", PLAIN_NODE);
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
    write("validate.mjs", VALIDATE);
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
    write("react.mjs", REACT_SSR);
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
    write("consumer.ts", NODE_CONSUMER);
    // The hook typed from the environment above, with a type-only import.
    write("hook.ts", TYPED_HOOK);
    await typecheck("tsconfig.node.json", project);
    // tsc over the whole declaration graph: about 25 s on a busy 2-core machine.
  }, 120_000);

  it("builds a worker of the user's own with wrangler", async () => {
    write("worker/index.ts", OWN_WORKER);
    write("worker/tsconfig.json", WORKER_TSCONFIG);
    write("worker/wrangler.toml", OWN_WORKER_TOML);
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
    write("layered/index.ts", LAYERED_WORKER);
    write("layered/tsconfig.json", WORKER_TSCONFIG);
    write("layered/wrangler.toml", LAYERED_WORKER_TOML);
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
