// The dev server's stack mapper: a frame in a bundle under its work folder
// becomes the author's file and line from the bundle's source map; a frame
// elsewhere (a post naming any file on the machine) is left as it came, and
// so is one whose bundle has no map.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createStackMapper } from "../../src/cli/stack-map-host";

const root = mkdtempSync(join(tmpdir(), "roost-stack-map-"));
const work = join(root, "work");
const outside = join(root, "elsewhere");
mkdirSync(work);
mkdirSync(outside);
// One mapping: the bundle's line 1, column 1 is src/env.ts line 3, column 5.
const map = JSON.stringify({
  version: 3,
  sources: ["../src/env.ts"],
  names: [],
  mappings: "AAEI"
});
for (const dir of [work, outside]) {
  writeFileSync(join(dir, "worker.js"), "throw new Error('x');\n");
  writeFileSync(join(dir, "worker.js.map"), map);
}
writeFileSync(join(work, "bare.js"), "throw 1;\n");

afterAll(() => rmSync(root, { recursive: true, force: true }));

const frame = (file: string) =>
  `Error: x\n    at run (${pathToFileURL(file).href}:1:1)`;

describe("the dev server's stack mapper", () => {
  const mapStack = createStackMapper(work);

  it("maps a frame of a bundle in its work folder to the author's file and line", () => {
    expect(mapStack(frame(join(work, "worker.js")))).toBe(
      `Error: x\n    at run (${pathToFileURL(join(root, "src", "env.ts")).href}:3:5)`
    );
  });

  it("leaves a frame outside its work folder, or of a bundle without a map, as it came", () => {
    for (const file of [join(outside, "worker.js"), join(work, "bare.js")])
      expect(mapStack(frame(file))).toBe(frame(file));
  });
});
