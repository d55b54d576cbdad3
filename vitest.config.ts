import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The node project stays empty until the end-to-end issues fill it.
    passWithNoTests: true,
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./test/wrangler.toml" },
            miniflare: { bindings: { ROOST_DEV: "1" } }
          })
        ],
        test: {
          name: "workers",
          include: ["src/**/*.test.ts", "test/workers/**/*.test.ts"]
        }
      },
      {
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
