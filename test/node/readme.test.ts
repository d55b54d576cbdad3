import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The README's "Defining an environment" block must be the example that
// tsc checks and the worker serves, not a copy that drifts.
describe("README", () => {
  it("shows examples/story/index.ts verbatim", () => {
    const readme = readFileSync("README.md", "utf8");
    const story = readFileSync("examples/story/index.ts", "utf8");
    const marker = readme.indexOf("<!-- This block is examples/story/index.ts");
    expect(marker).toBeGreaterThan(0);
    const start = readme.indexOf("```ts\n", marker) + "```ts\n".length;
    const end = readme.indexOf("```", start);
    expect(readme.slice(start, end)).toBe(story);
  });

  it("keeps the two quick-start commands", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });

  // A pasted block that uses a variable no block sets sends nothing (the
  // tree example once used $AUTH where the walkthrough sets $T).
  it("sets every shell variable its sh blocks use", () => {
    const readme = readFileSync("README.md", "utf8");
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map(
      (m) => m[1]!
    );
    expect(blocks.length).toBeGreaterThan(3);
    const code = blocks
      .join("\n")
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("#"))
      .join("\n");
    const set = new Set(
      [...code.matchAll(/^\s*(?:export\s+)?([A-Za-z_]\w*)=/gm)].map((m) => m[1])
    );
    const used = new Set(
      [...code.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1])
    );
    const unset = [...used].filter((name) => !set.has(name));
    expect(unset).toEqual([]);
  });

  // What the README's commands write (the rollout's --out file, wrangler's
  // state, the builds, npm start's generated config) stays out of
  // `git status`; package.json's files list keeps it out of the package.
  it("has git ignore every file its commands write", () => {
    const readme = readFileSync("README.md", "utf8");
    const outs = [...readme.matchAll(/--out\s+([^\s`]+)/g)].map((m) => m[1]!);
    expect(outs).toContain("trajectories.jsonl");
    for (const path of [
      ...outs,
      ".wrangler/state/v3",
      "dist/index.js",
      ".roost/8787/wrangler.toml"
    ])
      expect(
        () => execFileSync("git", ["check-ignore", "-q", path]),
        path
      ).not.toThrow();
  });
});
