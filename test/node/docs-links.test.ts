import { execFileSync } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  brokenLinks,
  githubSlug,
  headingIds,
  links
} from "./helpers/markdown-links";

// Every relative link in the project's Markdown leads somewhere: the front
// page, the guide in docs/, the examples' and the bench's READMEs, and any
// other Markdown file git tracks. Links to http(s) addresses are not
// followed (the tests run offline).
const root = new URL("../..", import.meta.url).pathname;
const pages = readdirSync(join(root, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort();
const tracked = execFileSync("git", ["ls-files", "*.md"], {
  cwd: root,
  encoding: "utf8"
})
  .split("\n")
  .filter((f) => f !== "" && !f.includes("node_modules/"));
const files = [
  ...new Set([
    "README.md",
    ...pages.map((p) => `docs/${p}`),
    ...readdirSync(join(root, "examples"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `examples/${d.name}/README.md`),
    ...tracked
  ])
].sort();

/** The docs pages a Markdown file links to, by file name. */
const linkedPages = (file: string): Set<string> =>
  new Set(
    links(readFileSync(join(root, file), "utf8"))
      .map((l) => l.target.split("#")[0]!)
      .map((t) => t.replace(/^(\.\/)?(docs\/)?/, ""))
  );

describe("links in the project's Markdown", () => {
  it("covers the front page, every guide page and every example's README", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/README.md");
    expect(pages.length).toBeGreaterThan(10);
    expect(files).toContain("examples/story/README.md");
  });

  it.each(files)("%s: every relative link and #anchor resolves", (file) => {
    expect(brokenLinks(join(root, file), root)).toEqual([]);
  });

  it("the front page links every page of the guide", () => {
    const linked = linkedPages("README.md");
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it("the guide's index links every other page, and every page links back", () => {
    const index = linkedPages("docs/README.md");
    const others = pages.filter((p) => p !== "README.md");
    expect(others.filter((p) => !index.has(p))).toEqual([]);
    expect(
      others.filter((p) => !linkedPages(`docs/${p}`).has("README.md"))
    ).toEqual([]);
  });
});

describe("the link checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "roost-links-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes heading ids as GitHub does", () => {
    expect(githubSlug("Aviary (`TaskDatasetClient`)")).toBe(
      "aviary-taskdatasetclient"
    );
    expect(githubSlug("Where Roost differs, on purpose")).toBe(
      "where-roost-differs-on-purpose"
    );
    expect(githubSlug("Tables of your own (`ctx.sql`)")).toBe(
      "tables-of-your-own-ctxsql"
    );
    expect(githubSlug("snake_case and kebab-case")).toBe(
      "snake_case-and-kebab-case"
    );
    expect(githubSlug("A [linked](x.md) heading")).toBe("a-linked-heading");
    expect([
      ...headingIds(
        "# Setup\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n\nTitle\n-----\n"
      )
    ]).toEqual(["setup", "setup-1", "setup-2", "title"]);
  });

  it("names the file, the line and the link of a missing file or heading", () => {
    writeFileSync(join(dir, "other.md"), "# Other\n\n## A section\n");
    writeFileSync(
      join(dir, "page.md"),
      [
        "# Page",
        "",
        "[fine](other.md#a-section) [fine too](#page) [web](https://example.com/x)",
        "[gone](missing.md) and `[not a link](nowhere.md)`",
        "[bad anchor](other.md#no-such-section)",
        "![bad image](pic.png) [here](#nowhere)",
        "```md",
        "[in a code block](nowhere.md)",
        "```"
      ].join("\n")
    );
    expect(brokenLinks(join(dir, "page.md"), dir)).toEqual([
      "page.md:4: missing.md: no such file (missing.md)",
      'page.md:5: other.md#no-such-section: no heading with id "no-such-section" in other.md',
      "page.md:6: pic.png: no such file (pic.png)",
      'page.md:6: #nowhere: no heading with id "nowhere" in page.md'
    ]);
  });
});
