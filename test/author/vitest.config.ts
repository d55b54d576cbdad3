import { defineConfig } from "vitest/config";

// An author's first hour, from the packed tarball in a fresh folder outside
// the repository: roost-edge init, npm install, roost-edge dev, requests over
// HTTP, the scaffold's own tests and wrangler deploy --dry-run. It rebuilds
// and packs dist/ as the package test does, so it must not run beside it:
// `npm run test:author` runs it on its own (one to two and a half minutes
// on two shared cores, most of it npm install and wrangler starting).
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
