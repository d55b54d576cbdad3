// The library in src/ stands alone: it ships in the package without the
// examples, tests or benchmarks, so it must never import them.
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

describe("layering", () => {
  it("src/ imports nothing outside src/ but packages", () => {
    const outside: string[] = [];
    for (const file of sources(src)) {
      const text = readFileSync(file, "utf8");
      for (const [, spec] of text.matchAll(/from\s+"(\.[^"]+)"/g)) {
        const target = relative(src, resolve(dirname(file), spec!));
        if (target.startsWith(".."))
          outside.push(`${relative(root, file)} → ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
