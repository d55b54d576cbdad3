import { defineConfig } from "vitest/config";

// An author's first hour, from the packed tarball in a fresh folder outside
// the repository: roost-edge init, npm install of what it wrote, validate
// and a TypeScript policy's rollout, roost-edge dev (a file that does not
// build, requests over HTTP, sessions back after a restart), the scaffold's
// own tests and wrangler deploy --dry-run. It rebuilds and packs dist/ as
// the package test does, so it must not run beside it: `npm run
// test:author` runs it on its own (three to seven minutes on two shared
// cores, most of it npm install and three wrangler dev starts).
export default defineConfig({
  test: {
    name: "author",
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/author/**/*.test.ts"],
    environment: "node",
    hookTimeout: 600_000,
    testTimeout: 300_000,
    fileParallelism: false
  }
});
