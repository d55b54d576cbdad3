/**
 * @module The user's modules the commands load (`validate`'s environments,
 * `--policy`, `rescore --rubric`), TypeScript included: Node 20 cannot
 * import a `.ts` file, and an author's project is TypeScript.
 */

import { existsSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "./args";
import { buildErrors, findEsbuild, formatErrors } from "./esbuild";
import { packageRoot } from "./package-root";

const TYPESCRIPT = /\.([cm]?tsx?|jsx)$/;

/** Why Node refused a file before running any of it: the compiled copy may load. */
const NOT_PLAIN_NODE = new Set([
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_MODULE_NOT_FOUND",
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING"
]);

/**
 * Imports the user's module at `spec` (relative to the working directory);
 * a module that does not load is a UsageError starting with `failure`.
 * TypeScript is imported as it is when something already loads it (tsx,
 * a Node that strips types), and otherwise compiled first (see
 * `importTypeScript`).
 */
export const importModule = async (
  spec: string,
  failure: string
): Promise<Record<string, unknown>> => {
  const path = isAbsolute(spec) ? spec : resolve(spec);
  if (!existsSync(path))
    throw new UsageError(`${failure}: ${path}: no such file.`);
  try {
    return await import(pathToFileURL(path).href);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (TYPESCRIPT.test(path) && NOT_PLAIN_NODE.has(String(code)))
      return importTypeScript(path, failure);
    throw new UsageError(`${failure}: ${reason(error)}`);
  }
};

/**
 * Bundles the module's own files with esbuild (packages stay imports, so
 * they are the project's installed ones, as for a `.js` module) into a
 * hidden `.mjs` beside it, where its imports resolve as its own would, and
 * imports that. The copy is deleted once imported; its source map keeps
 * stacks pointing into the author's `.ts`.
 */
export const importTypeScript = async (
  path: string,
  failure: string
): Promise<Record<string, unknown>> => {
  const esbuild = findEsbuild([
    path,
    join(process.cwd(), "package.json"),
    join(packageRoot(), "package.json")
  ]);
  if (esbuild === undefined)
    throw new UsageError(
      `${failure}: reading TypeScript needs esbuild, which wrangler brings. Install it in your project (npm install --save-dev wrangler, or esbuild), or compile the module to JavaScript.`
    );
  const out = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.roost.mjs`
  );
  let code: string;
  try {
    const built = await esbuild.build({
      entryPoints: [path],
      outfile: out,
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: `node${process.versions.node.split(".")[0]}`,
      sourcemap: "inline",
      write: false,
      logLevel: "silent"
    });
    code = built.outputFiles[0]!.text;
  } catch (error) {
    const errors = buildErrors(error);
    throw new UsageError(
      errors === undefined
        ? `${failure}: ${reason(error)}`
        : `${failure}:\n${formatErrors(esbuild, errors, process.stderr.isTTY === true)}`
    );
  }
  process.setSourceMapsEnabled(true);
  const remove = () => rmSync(out, { force: true });
  process.once("exit", remove);
  try {
    writeFileSync(out, code);
    return await import(pathToFileURL(out).href);
  } catch (error) {
    // Node names the copy; the author knows the file.
    throw new UsageError(`${failure}: ${reason(error).replaceAll(out, path)}`);
  } finally {
    remove();
    process.off("exit", remove);
  }
};

const reason = (error: unknown) =>
  error instanceof Error ? error.message : String(error);
