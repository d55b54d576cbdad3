import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// The package's own name resolves to its sources, as tsconfig.json's paths
// say (an installed copy resolves to dist/ through package.json's exports).
const source = (path: string) => new URL(path, import.meta.url).pathname;
const resolve = {
  alias: [
    { find: /^roost-edge$/, replacement: source("./src/index.ts") },
    { find: /^roost-edge\/core$/, replacement: source("./src/core.ts") },
    {
      find: /^roost-edge\/client$/,
      replacement: source("./src/client/index.ts")
    },
    {
      find: /^roost-edge\/react$/,
      replacement: source("./src/react/index.ts")
    },
    { find: /^roost-edge\/code$/, replacement: source("./src/code/index.ts") },
    {
      find: /^roost-edge\/layers$/,
      replacement: source("./src/layers/index.ts")
    },
    {
      find: /^roost-edge\/layers\/([a-z-]+)$/,
      replacement: `${source("./src/layers/")}$1/index.ts`
    }
  ]
};

/**
 * Whether scripts/patch-test-pool.mjs (run by `npm install`) guarded the
 * pool's module runner: only then may test files share one module graph,
 * which saves each file loading every module again.
 */
/** ROOST_TEST_LOUD=1 prints what a passing run keeps quiet (docs/14). */
const loud = process.env.ROOST_TEST_LOUD === "1";

const poolPatched = readFileSync(
  new URL(
    "./node_modules/@cloudflare/vitest-pool-workers/dist/worker/index.mjs",
    import.meta.url
  ),
  "utf8"
).includes("/* roost: runner transport wrapped once */");

export default defineConfig({
  test: {
    // The node project stays empty until the end-to-end issues fill it.
    passWithNoTests: true,
    // Vitest's default on two cores is one worker, which runs every file of
    // both projects in turn; the node files mostly wait on wrangler dev, npm
    // and tsc, so a second worker overlaps them with the workerd files
    // (vitest run: 4.4 min → 3.4 min here).
    maxWorkers: 2,
    // A passing test's console output is what it was written to provoke
    // (tools that throw on purpose, the development-mode warning); a
    // failing test's is printed with its failure.
    silent: loud ? false : "passed-only",
    // On two busy cores hundreds of tests pass 300 ms; only the few
    // slower than this are listed under their file.
    slowTestThreshold: loud ? 300 : 2_000,
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./test/wrangler.toml" },
            miniflare: { bindings: { ROOST_DEV: "1" } }
          })
        ],
        // The tests run zod as the deployed worker does: through the lean
        // module wrangler.toml's [alias] names (see src/zod-slim.ts).
        resolve: {
          alias: [
            ...resolve.alias,
            { find: /^zod$/, replacement: source("./src/zod-slim.ts") }
          ]
        },
        test: {
          name: "workers",
          include: ["src/**/*.test.ts", "test/workers/**/*.test.ts"],
          isolate: !poolPatched,
          globalSetup: ["test/node/helpers/quiet-workerd.ts"]
        }
      },
      {
        resolve,
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          globalSetup: ["test/node/global-setup.ts"],
          // wrangler dev can take a while to start on a busy 2-core machine.
          hookTimeout: 120_000,
          testTimeout: 30_000,
          fileParallelism: false
        }
      }
    ]
  }
});
