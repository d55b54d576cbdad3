// The library's folders form layers: a folder imports only from the layers
// below it, so the core (store, state, tree, tools, environment) runs
// without the runner, the Durable Object or the HTTP app, and src/ as a
// whole ships in the package without the examples, tests or benchmarks.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(new URL("../..", import.meta.url).pathname);
const src = join(root, "src");

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !/\.(test|case)\.ts$/.test(entry.name)
      ? [path]
      : [];
  });

/** Shared by everything: errors, JSON (and JSON in a model's prose), names, messages, the wire shapes and reading a body within a cap. */
const BASE = [
  "errors",
  "issues",
  "json",
  "names",
  "messages",
  "protocol",
  "timeout",
  "lazy",
  "read-within",
  "json-in-prose"
];

/** The core: runs anywhere, without the Durable Object or the HTTP app. */
const CORE = ["store", "state", "tree", "tools", "rewards", "environment"];

/** What each folder may import besides itself and BASE. Entry files (index, core, roost) may import anything. */
const MAY_IMPORT: Record<string, string[]> = {
  ...Object.fromEntries(BASE.map((b) => [b, []])),
  store: [],
  state: [],
  // Tree data shows rules the store through its read-only view.
  tree: ["store"],
  tools: ["store", "state", "tree"],
  rewards: ["store", "state", "tree", "tools"],
  environment: ["store", "state", "tree", "tools", "rewards"],
  // Code tools are tools over the store and state; the isolates come in
  // through the tool context (session/isolates.ts), not an import.
  code: ["store", "state", "tools"],
  runner: CORE,
  storage: CORE,
  session: [...CORE, "runner", "storage"],
  http: [...CORE, "runner", "session"],
  // The optional capabilities a worker opts into (src/layers/*): above the
  // session and the HTTP core, which import none of them. A layer may build
  // on another (OpenEnv serves MCP under its bases).
  layers: [...CORE, "runner", "storage", "session", "http"],
  client: [],
  // The validator plays environments on local sessions with the client's policies.
  validate: [...CORE, "runner", "client"],
  cli: ["client", "validate"],
  // The hook is built on the client; React comes from the app.
  react: ["client"]
};
const ENTRY_FILES = ["index", "core", "roost", "zod-lean"];

/** Every relative import in src/ as [importing file, its layer, the imported path relative to src]. */
const imports = (): [string, string, string][] =>
  sources(src).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/from\s+"(\.[^"]+)"/g)].map(
      ([, spec]): [string, string, string] => [
        relative(root, file),
        relative(src, file).split("/")[0]!.replace(/\.ts$/, ""),
        relative(src, resolve(dirname(file), spec!))
      ]
    )
  );

describe("layering", () => {
  it("src/ imports nothing outside src/ but packages", () => {
    const outside = imports()
      .filter(([, , target]) => target.startsWith(".."))
      .map(([file, , target]) => `${file} → ${target}`);
    expect(outside).toEqual([]);
  });

  it("every folder imports only from the layers below it", () => {
    const upward = imports()
      .filter(([, layer]) => !ENTRY_FILES.includes(layer))
      .filter(([, layer, target]) => {
        const to = target.split("/")[0]!.replace(/\.ts$/, "");
        const allowed = MAY_IMPORT[layer];
        if (allowed === undefined) return true;
        return to !== layer && !BASE.includes(to) && !allowed.includes(to);
      })
      .map(([file, , target]) => `${file} → ${target}`);
    expect(upward).toEqual([]);
  });

  it("knows every folder of src/", () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => MAY_IMPORT[f] === undefined)).toEqual([]);
  });
});
