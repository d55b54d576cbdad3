/**
 * @module `roost-edge check [files…]`: typechecks an author's environment
 * files with the strictness Roost's own sources are held to.
 *
 * wrangler and esbuild strip types without checking them, so a file served
 * by `npm start -- my-env.ts` or `roost-edge dev` can hold type errors
 * nothing reports (an unchecked index that is `undefined` at run time).
 * TypeScript comes from the author's project, and Roost's own copy when the
 * project has none; it is never a dependency of the package.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type * as TS from "typescript";

export interface CheckResult {
  /** Every diagnostic, formatted as tsc prints it. */
  report: string;
  errors: number;
  files: number;
}

/** The folder holding Roost's package.json: the clone, or the installed package. */
const roostRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dir;
};

/** A package's folder, from the author's project first, then Roost's own. */
const resolvePackage = (name: string, cwd: string): string | undefined => {
  for (const from of [join(cwd, "package.json"), join(roostRoot(), "x.js")]) {
    try {
      return dirname(createRequire(from).resolve(`${name}/package.json`));
    } catch {
      // Not installed there.
    }
  }
  return undefined;
};

const loadTypeScript = (cwd: string): typeof TS => {
  const dir = resolvePackage("typescript", cwd);
  if (dir === undefined)
    throw new CheckError(
      "roost-edge check needs TypeScript: npm install --save-dev typescript"
    );
  return createRequire(join(dir, "x.js"))("typescript") as typeof TS;
};

export class CheckError extends Error {
  override readonly name = "CheckError";
}

/**
 * What an author's file is checked with when no tsconfig.json says
 * otherwise: what Roost's sources use, `noUncheckedIndexedAccess` included.
 */
const DEFAULTS = {
  target: "ES2022",
  module: "ES2022",
  moduleResolution: "Bundler",
  lib: ["ES2023"],
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  isolatedModules: true,
  skipLibCheck: true,
  resolveJsonModule: true
} as const;

/**
 * Checks `files` (or, with none, the project the nearest tsconfig.json
 * describes) and answers the diagnostics; never throws for a type error.
 */
export const check = (
  files: readonly string[],
  { cwd = process.cwd(), color = false }: { cwd?: string; color?: boolean } = {}
): CheckResult => {
  const ts = loadTypeScript(cwd);
  const configPath = ts.findConfigFile(cwd, ts.sys.fileExists);
  if (files.length === 0 && configPath === undefined)
    throw new CheckError(
      "No tsconfig.json here: name the files to check (roost-edge check src/index.ts)."
    );
  const fromConfig = configPath
    ? ts.parseJsonConfigFileContent(
        ts.readConfigFile(configPath, ts.sys.readFile).config,
        ts.sys,
        dirname(configPath)
      )
    : undefined;
  const roots =
    files.length > 0
      ? files.map((file) => {
          const path = resolve(cwd, file);
          if (!existsSync(path)) throw new CheckError(`${file}: no such file`);
          return path;
        })
      : (fromConfig?.fileNames ?? []);
  // A tsconfig of a project that is not the files' own (a clone's, for a
  // file outside it) would check them against the wrong includes, not the
  // wrong options: its options still apply, with Roost's floor beneath.
  const options: TS.CompilerOptions = {
    ...ts.convertCompilerOptionsFromJson(DEFAULTS, cwd).options,
    ...fromConfig?.options,
    noEmit: true
  };
  const resolves = (name: string) =>
    ts.resolveModuleName(
      name,
      roots[0] ?? join(cwd, "index.ts"),
      options,
      ts.sys
    ).resolvedModule !== undefined;
  // For a file beside no node_modules of its own (one served by a clone's
  // `npm start -- file`), the package and zod resolve to the copies this
  // command runs from, as the generated worker's aliases make them.
  const root = roostRoot();
  const src = join(root, "src");
  options.paths = {
    ...(resolves("roost-edge/core")
      ? {}
      : {
          "roost-edge": [join(src, "index.ts")],
          "roost-edge/core": [join(src, "core.ts")],
          "roost-edge/client": [join(src, "client", "index.ts")],
          "roost-edge/react": [join(src, "react", "index.ts")],
          "roost-edge/zod-lean": [join(src, "zod-lean.ts")]
        }),
    ...(resolves("zod") ? {} : { zod: [join(root, "node_modules", "zod")] }),
    ...options.paths
  };
  // An environment runs in a worker: without a tsconfig saying otherwise,
  // its globals (fetch, crypto, Request) are the Workers runtime's.
  if (fromConfig === undefined) {
    const workers = resolvePackage("@cloudflare/workers-types", cwd);
    options.types = workers ? [workers] : [];
  }
  const program = ts.createProgram(roots, options);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error);
  const host: TS.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => cwd,
    getNewLine: () => "\n"
  };
  return {
    report: (color
      ? ts.formatDiagnosticsWithColorAndContext
      : ts.formatDiagnostics)(diagnostics, host),
    errors: diagnostics.length,
    files: roots.length
  };
};
