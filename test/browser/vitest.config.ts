import { defineConfig } from "vitest/config";

// Browser end-to-end tests: Debian's Chromium driven by playwright-core
// against the same `wrangler dev` the node tests use. Not part of
// `npm test`, which must pass on machines without Chromium.
export default defineConfig({
  test: {
    name: "browser",
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    // The inspector and the chat example are built first: wrangler dev serves
    // them as assets.
    globalSetup: ["test/browser/build-pages.ts", "test/node/global-setup.ts"],
    hookTimeout: 120_000,
    testTimeout: 60_000,
    fileParallelism: false
  }
});
