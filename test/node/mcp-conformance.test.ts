import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";

// The official MCP conformance suite, pinned, run as the SDKs run it
// (`conformance server --requirements <revision>`) against wrangler dev's
// mcp-everything environment, whose tools, prompts and resources are the
// suite's fixtures. Every scenario of each requirement set runs, scored or
// not (extensions, pending ones), and not one check may fail: there is no
// expected-failures list.
const base = inject("baseUrl");
const require = createRequire(import.meta.url);
const CLI = join(
  dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js"
);
// Node 20 lacks the fs.globSync the suite imports (helpers/conformance).
const REGISTER = fileURLToPath(
  new URL("./helpers/conformance/register.mjs", import.meta.url)
);

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Runs one requirement set; answers each scenario's checks. */
const runSuite = async (
  requirements: "2025-11-25" | "2026-07-28"
): Promise<Map<string, Check[]>> => {
  const out = mkdtempSync(join(tmpdir(), "roost-conformance-"));
  try {
    await new Promise<void>((resolve) => {
      // It exits non-zero when a check fails: the checks say which.
      execFile(
        process.execPath,
        [
          "--import",
          REGISTER,
          CLI,
          "server",
          "--url",
          `${base}/v1/environments/mcp-everything/mcp`,
          "--requirements",
          requirements,
          "-o",
          out
        ],
        { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
        () => resolve()
      );
    });
    const scenarios = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const scenario = dir
        .replace(/^server-/, "")
        .replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
      const checks = JSON.parse(
        readFileSync(join(out, dir, "checks.json"), "utf8")
      ) as Check[];
      scenarios.set(scenario, checks);
    }
    return scenarios;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};

const failures = (scenarios: Map<string, Check[]>) =>
  [...scenarios].flatMap(([scenario, checks]) =>
    checks
      .filter((c) => c.status === "FAILURE")
      .map((c) => `${scenario} ${c.id}: ${c.errorMessage ?? ""}`)
  );

describe("the official MCP conformance suite on mcp-everything", () => {
  it("passes every 2025-11-25 requirement: 33 scenarios, no check failed", async () => {
    const scenarios = await runSuite("2025-11-25");
    expect(failures(scenarios)).toEqual([]);
    // Every required scenario ran, and each exercised the server.
    expect(scenarios.size).toBe(33);
    for (const name of [
      "tools-call-sampling",
      "tools-call-elicitation",
      "tools-call-with-logging",
      "tools-call-with-progress",
      "prompts-get-with-args",
      "resources-templates-read",
      "completion-complete",
      "logging-set-level",
      "json-schema-2020-12"
    ]) {
      expect(
        scenarios.get(name)?.some((c) => c.status === "SUCCESS"),
        name
      ).toBe(true);
    }
  }, 300_000);
});
