import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import {
  type Check,
  CONFORMANCE_CLI,
  failedChecks,
  readChecks
} from "./helpers/conformance/cli";

// The official MCP conformance suite, pinned, run as the SDKs run it
// (`conformance server --requirements <revision>`) against wrangler dev's
// mcp-everything environment, whose tools, prompts and resources are the
// suite's fixtures. Every scenario of each requirement set runs, scored or
// not (extensions, pending ones), and not one check may fail: there is no
// expected-failures list. Its tasks scenarios leave 60-second calls
// running in their own sessions: they end on their own.
const base = inject("baseUrl");

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
          ...CONFORMANCE_CLI,
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
    return new Map(
      [...readChecks(out)].map(([dir, checks]) => [
        dir.replace(/^server-/, ""),
        checks
      ])
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};

describe("the official MCP conformance suite on mcp-everything", () => {
  it("passes every 2025-11-25 requirement: 33 scenarios, no check failed", async () => {
    const scenarios = await runSuite("2025-11-25");
    expect(failedChecks(scenarios)).toEqual([]);
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

  it("passes every 2026-07-28 requirement, the tasks extension's and the pending ones too: 50 scenarios, no check failed", async () => {
    const scenarios = await runSuite("2026-07-28");
    expect(failedChecks(scenarios)).toEqual([]);
    expect(scenarios.size).toBe(50);
    for (const name of [
      "server-stateless",
      "caching",
      "input-required-result-multi-round",
      "input-required-result-tampered-state",
      "input-required-result-non-tool-request",
      "tasks-lifecycle",
      "tasks-mrtr-input",
      "tasks-mrtr-composition",
      "tasks-required-task-error",
      "http-custom-header-server-validation"
    ]) {
      expect(
        scenarios.get(name)?.some((c) => c.status === "SUCCESS"),
        name
      ).toBe(true);
    }
  }, 300_000);
});
