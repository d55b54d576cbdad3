/**
 * @module The package as a user gets it: built as `npm pack` builds it,
 * packed into a folder, and installed from the tarball into a fresh
 * project. The package test (test/node/package.test.ts) and the author's
 * test (test/author/) both start here.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = new URL("../../..", import.meta.url).pathname;

/** The version this clone has installed of `name` (a dev dependency, say). */
export const installedVersion = (name: string): string =>
  JSON.parse(
    readFileSync(join(root, "node_modules", name, "package.json"), "utf8")
  ).version;

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** Every path it holds, as `npm pack` lists them. */
  files: string[];
}

/**
 * Builds what `npm pack` would through prepare and prepack, then packs the
 * tarball into `dir`. The inspector is built only when it is missing (and
 * `inspector` is "if-missing"): rewriting dist/inspector reloads any
 * wrangler dev that serves it, the node tests' shared one included.
 */
export const packPackage = async (
  dir: string,
  options: { inspector: "as-built" | "if-missing" }
): Promise<Packed> => {
  await run(process.execPath, [join(root, "scripts", "build-package.mjs")]);
  await run("npm", ["run", "--silent", "build:cli"], { cwd: root });
  if (
    options.inspector === "if-missing" &&
    !existsSync(join(root, "dist", "inspector", "index.html"))
  )
    await run("npm", ["run", "--silent", "build:inspector"], { cwd: root });
  const { stdout } = await run(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dir],
    { cwd: root }
  );
  const [info] = JSON.parse(stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  return {
    tarball: join(dir, info!.filename),
    files: info!.files.map((f) => f.path)
  };
};

/** `npm install`s `packages` (a tarball's path among them) into `project`, which has a package.json. */
export const installInto = (project: string, packages: string[]) =>
  run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", ...packages],
    { cwd: project }
  );
