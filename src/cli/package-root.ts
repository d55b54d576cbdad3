/** @module This package's own folder and manifest, found from the running file: dist/cli.js installed, or src/cli/ in a clone. */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Manifest {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The nearest folder above this file whose package.json is roost-edge's. */
export const packageRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, "package.json");
    if (
      existsSync(file) &&
      (JSON.parse(readFileSync(file, "utf8")) as Manifest).name === "roost-edge"
    )
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("roost-edge's package.json is missing.");
    dir = up;
  }
};

/**
 * The package's manifest. It ships with the package, devDependencies
 * included, so a scaffold pins what this very version was tested with.
 */
export const manifest = (): Manifest =>
  JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8"));
