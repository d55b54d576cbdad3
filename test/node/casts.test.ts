// `as never` silences the type checker wholesale; issue 53 took the last
// out of the HTTP routes and the layers and cut the rest to the generic
// erasures a type cannot say (rubrics called whatever the state, the
// platform's SQL values, the dev worker's generated imports). A new one
// has to argue its way past this count.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(new URL("../..", import.meta.url).pathname);

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !/\.(test|case)\.ts$/.test(entry.name)
      ? [path]
      : [];
  });

/** Each `as never` cast in the file (not the words in prose). */
const castsIn = (file: string): number =>
  [...readFileSync(file, "utf8").matchAll(/\bas never(?=\s*[),;\]}]|$)/gm)]
    .length;

const counts = sources(join(root, "src"))
  .map((file) => ({ file: relative(root, file), casts: castsIn(file) }))
  .filter((c) => c.casts > 0);

describe("as never in src/", () => {
  it("is gone from the routes and the layers", () => {
    expect(counts.filter((c) => /^src\/(http|layers)\//.test(c.file))).toEqual(
      []
    );
  });

  it("stays at or under 23 in all", () => {
    const total = counts.reduce((sum, c) => sum + c.casts, 0);
    expect(total, JSON.stringify(counts, null, 1)).toBeLessThanOrEqual(23);
  });
});
