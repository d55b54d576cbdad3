/** The official MCP conformance suite's CLI, as the tests run it on Node 20, and the checks it writes. */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** `node` arguments that start the suite's CLI (register.mjs stands in for Node 22's fs.globSync). */
export const CONFORMANCE_CLI = [
  "--import",
  fileURLToPath(new URL("./register.mjs", import.meta.url)),
  join(
    dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
    "dist/index.js"
  )
];

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Each scenario's checks in an output folder, by scenario name (its folder without the time). */
export const readChecks = (out: string): Map<string, Check[]> => {
  const scenarios = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    scenarios.set(
      scenario,
      JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as Check[]
    );
  }
  return scenarios;
};

/** The checks that failed, each as `scenario id: message`. */
export const failedChecks = (scenarios: Map<string, Check[]>): string[] =>
  [...scenarios].flatMap(([scenario, checks]) =>
    checks
      .filter((c) => c.status === "FAILURE")
      .map((c) => `${scenario} ${c.id}: ${c.errorMessage ?? ""}`)
  );
