// A comment that sends the reader to a file must name one that exists:
// two pointed at files long renamed (issue 53). A name is found by its path
// from the comment's folder or from src/, or, written bare, as any file of
// the repository with that name. Names a user would give their own files
// (my-env.ts) and the files of a project init writes are not references.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(new URL("../..", import.meta.url).pathname);

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });

const everything = [
  "src",
  "test",
  "examples",
  "scripts",
  "bench",
  "inspector"
].flatMap((d) => walk(join(root, d)));
const names = new Set(everything.map((f) => basename(f)));
const sources = everything.filter((f) =>
  /^src\/.*\.ts$/.test(relative(root, f))
);

/** Files of the project `roost-edge init` writes, which the CLI's comments speak of. */
const PROJECT_FILES = new Set(["src/worker.ts"]);

const REFERENCE = /(?<![\w@])([\w\-./]+\.(?:ts|mjs))\b/g;

const missing = sources.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) => {
      if (!/^\s*(\/\/|\*|\/\*)/.test(line)) return [];
      return [...line.matchAll(REFERENCE)]
        .map((m) => m[1]!)
        .filter((ref) => !/^my-/.test(basename(ref)) && !PROJECT_FILES.has(ref))
        .filter(
          (ref) =>
            !existsSync(join(dirname(file), ref)) &&
            !existsSync(join(root, "src", ref)) &&
            !existsSync(join(root, ref)) &&
            !(ref === basename(ref) && names.has(ref))
        )
        .map((ref) => `${relative(root, file)}:${i + 1}: ${ref}`);
    })
);

describe("file names in src/ comments", () => {
  it("name files that exist", () => {
    expect(missing).toEqual([]);
  });
});
