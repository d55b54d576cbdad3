import { defineConfig } from "vitest/config";

// The giant-session test (issue 31): sessions built at every limit a write
// allows (over 200 MB of store, a 220 MB transcript, a full event log) and
// read back through every route. It takes 2.5 to 3.5 minutes on two shared
// cores (a minute or more of it building), so it is not part of
// `npm test`: `npm run test:giant` runs it against its own `wrangler dev`,
// started by the node tests' global setup.
export default defineConfig({
  test: {
    name: "giant",
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/giant/**/*.test.ts"],
    environment: "node",
    // The inspector and the chat app are built first, as for the browser tests.
    globalSetup: ["test/browser/build-pages.ts", "test/node/global-setup.ts"],
    hookTimeout: 1_800_000,
    testTimeout: 600_000,
    fileParallelism: false
  }
});
