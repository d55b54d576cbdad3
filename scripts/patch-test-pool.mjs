// Lets the Workers test pool run test files without isolation (one module
// graph per worker for all files, instead of each file loading every
// module anew — most of `npm test`'s time).
//
// @cloudflare/vitest-pool-workers 0.15.1 wraps the module runner's
// transport each time Vitest hands it the runner, which without isolation
// is once per test file: fetches go through one more layer per file and
// the run slows down file after file. Later releases guard the wrapper,
// but they need Node 22 and a newer wrangler. This applies the same guard
// to the pinned release; `npm install` runs it (the `prepare` script).
// vitest.config.ts turns isolation off only when the guard is present, so
// an unpatched install is slower, never wrong.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MARKER = "/* roost: runner transport wrapped once */";
const PINNED = "0.15.1";
const UNGUARDED = `\t\t\t\tconst runner = moduleRunner;
\t\t\t\tif (runner.transport?.invoke) {`;
const GUARDED = `\t\t\t\tconst runner = moduleRunner;
\t\t\t\t${MARKER}
\t\t\t\tif (runner.__roostWrapped) return;
\t\t\t\trunner.__roostWrapped = true;
\t\t\t\tif (runner.transport?.invoke) {`;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Not exported as a subpath: the package's files are read where npm put them.
const pool = join(root, "node_modules", "@cloudflare", "vitest-pool-workers");
// Installed without dev dependencies: nothing to patch.
if (!existsSync(pool)) process.exit(0);
const { version } = JSON.parse(
  readFileSync(join(pool, "package.json"), "utf8")
);
const file = join(pool, "dist", "worker", "index.mjs");
const source = readFileSync(file, "utf8");
if (source.includes(MARKER)) process.exit(0);
if (version !== PINNED || !source.includes(UNGUARDED)) {
  console.warn(
    `scripts/patch-test-pool.mjs: @cloudflare/vitest-pool-workers ${version} is not the ${PINNED} this patch is for; test files run isolated (slower). Remove the patch if this release guards its runner wrapper.`
  );
  process.exit(0);
}
writeFileSync(file, source.replace(UNGUARDED, GUARDED));
