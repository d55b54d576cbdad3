import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The README's "Defining an environment" block must be the example that
// tsc checks and the worker serves, not a copy that drifts.
describe("README", () => {
  it("shows examples/story/index.ts verbatim", () => {
    const readme = readFileSync("README.md", "utf8");
    const story = readFileSync("examples/story/index.ts", "utf8");
    const marker = readme.indexOf("<!-- This block is examples/story/index.ts");
    expect(marker).toBeGreaterThan(0);
    const start = readme.indexOf("```ts\n", marker) + "```ts\n".length;
    const end = readme.indexOf("```", start);
    expect(readme.slice(start, end)).toBe(story);
  });

  it("keeps the two quick-start commands", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });
});
