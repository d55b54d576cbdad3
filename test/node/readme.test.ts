import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contents } from "./helpers/markdown-links";

// The front page, the guide in docs/ and the examples' READMEs: what their
// code blocks show must be what the project runs.
const guide = readdirSync("docs")
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f}`);
const examples = readdirSync("examples", { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `examples/${d.name}/README.md`);
const markdown = ["README.md", ...guide, ...examples].map((file) => ({
  file,
  text: readFileSync(file, "utf8")
}));

describe("README and the guide", () => {
  // The story block must be the example that tsc checks and the worker
  // serves, not a copy that drifts; it lives in exactly one page.
  it("shows examples/story/index.ts verbatim, once", () => {
    const marker = "<!-- This block is examples/story/index.ts";
    const holders = markdown.filter((m) => m.text.includes(marker));
    expect(holders.map((m) => m.file)).toEqual(["docs/02-environments.md"]);
    const page = holders[0]!.text;
    expect(page.split(marker).length).toBe(2);
    const start =
      page.indexOf("```ts\n", page.indexOf(marker)) + "```ts\n".length;
    const end = page.indexOf("```", start);
    expect(page.slice(start, end)).toBe(
      readFileSync("examples/story/index.ts", "utf8")
    );
  });

  it("says how long the smallest example is, truly", () => {
    const readme = readFileSync("README.md", "utf8");
    const said = /examples\/story\/index\.ts\), (\d+) lines/.exec(readme);
    const lines = readFileSync("examples/story/index.ts", "utf8")
      .trimEnd()
      .split("\n").length;
    expect(Number(said?.[1])).toBe(lines);
  });

  it("keeps the two quick-start commands on the front page", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });

  // The front page is a front page over docs/, and every page of the
  // guide stays short enough to read, with its own contents list: detail
  // goes into a page of its own (a new number), not back onto these.
  const lines = (text: string) => text.trimEnd().split("\n").length;

  it("keeps the front page to 300 lines", () => {
    expect(lines(readFileSync("README.md", "utf8"))).toBeLessThanOrEqual(300);
  });

  // docs/README.md is the guide's index: its list of pages is its contents.
  it.each(guide.filter((file) => file !== "docs/README.md"))(
    "%s: at most 400 lines, with a contents list of every section",
    (file) => {
      const text = readFileSync(file, "utf8");
      expect(lines(text)).toBeLessThanOrEqual(400);
      const { sections, listed } = contents(text);
      expect(sections.length).toBeGreaterThan(0);
      expect(sections.filter((id) => !listed.includes(id))).toEqual([]);
    }
  );

  // A pasted block that uses a variable no block sets sends nothing (the
  // tree example once used $AUTH where the walkthrough sets $T). Pages
  // build on the walkthrough's $S and $T, so the blocks are taken together.
  it("sets every shell variable its sh blocks use", () => {
    const blocks = markdown.flatMap((m) =>
      [...m.text.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!)
    );
    expect(blocks.length).toBeGreaterThan(10);
    const code = blocks
      .join("\n")
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("#"))
      .join("\n");
    const set = new Set(
      [...code.matchAll(/^\s*(?:export\s+)?([A-Za-z_]\w*)=/gm)].map((m) => m[1])
    );
    // A variable set for one command: `NAME=value command …`.
    for (const m of code.matchAll(/^\s*((?:[A-Za-z_]\w*=\S*\s+)+)/gm))
      for (const name of m[1]!.matchAll(/([A-Za-z_]\w*)=/g)) set.add(name[1]);
    const used = new Set(
      [...code.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1])
    );
    const unset = [...used].filter((name) => !set.has(name));
    expect(unset).toEqual([]);
  });

  // What the commands write (the rollout's --out file, wrangler's state,
  // the builds, npm start's generated config) stays out of `git status`;
  // package.json's files list keeps it out of the package.
  it("has git ignore every file its commands write", () => {
    const outs = markdown.flatMap((m) =>
      [...m.text.matchAll(/--out\s+([^\s`]+)/g)].map((o) => o[1]!)
    );
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
