/**
 * @module `npm run bench`: starts the bench worker under `wrangler dev`,
 * runs every scenario (or those named: `npm run bench -- fan-out bundle`),
 * prints the table and, after a full run, writes bench/results/latest.md.
 */

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentsSdkScenario } from "./agents-sdk";
import { billScenario } from "./bill";
import { branchScenario } from "./branch";
import { bundle } from "./bundle";
import { codeScenario } from "./code";
import { curriculumScenario } from "./curriculum";
import { fanOut } from "./fan-out";
import { forkScenario } from "./fork";
import { gatewayScenario, startUpstream, type Upstream } from "./gateway";
import { giantReads } from "./giant-reads";
import { Api } from "./lib/api";
import { machine } from "./lib/machine";
import { ensureAgentsSdk, type Server, startServer } from "./lib/server";
import { progress } from "./lib/stats";
import { type Row, renderTable } from "./lib/table";
import { manySessions } from "./many-sessions";
import { openEnvScenario } from "./openenv";
import { rubricScenario } from "./rubric-cost";
import { sessionSize } from "./session-size";
import { soakScenario } from "./soak";
import { startup } from "./startup";
import { stepOverhead } from "./step-overhead";
import { treeRun } from "./tree-run";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** 1 000 sessions as the issue asks; BENCH_SESSIONS scales it down on a slow machine. */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);

const scenarios: Record<string, (api: Api, server: Server) => Promise<Row[]>> =
  {
    "step-overhead": (api, server) => stepOverhead(api, server.pgid),
    "session-size": (api) => sessionSize(api),
    "fan-out": (api) => fanOut(api),
    "tree-run": (api) => treeRun(api),
    fork: (api) => forkScenario(api),
    branch: (api) => branchScenario(api),
    "many-sessions": (api) =>
      manySessions(api, { sessions: SESSIONS, chunk: Math.min(200, SESSIONS) }),
    openenv: (api, server) => openEnvScenario(api.baseUrl, server.pgid),
    curriculum: (api) => curriculumScenario(api)
  };

/**
 * Scenarios on the bench worker that also serves the Agents SDK
 * (bench/agents/, installed there on first use). The SDK needs
 * nodejs_compat, so these get a server of their own and the others keep
 * running on the plain bench worker.
 */
const agentsScenarios: Record<string, (api: Api) => Promise<Row[]>> = {
  "agents-sdk": (api) => agentsSdkScenario(api)
};

/**
 * The bill: on a server of its own (with the Agents SDK beside Roost) that
 * meters every session object (ROOST_METER=1), so no other scenario is.
 */
const meteredScenarios: Record<
  string,
  (api: Api, server: Server) => Promise<Row[]>
> = {
  bill: (api, server) => billScenario(api, server.pgid),
  rubric: (api, server) => rubricScenario(api, server.pgid)
};

/**
 * Code tools (scenario 15): on a server of their own that meters every
 * session object (ROOST_METER=1), for the bill of a code call, without the
 * Agents SDK. Its code and plain calls are both metered, so their ratio
 * is on equal terms.
 */
const codeScenarios: Record<string, (api: Api) => Promise<Row[]>> = {
  code: (api) => codeScenario(api)
};

/**
 * The model gateway (scenario 17): on a metered server of its own whose
 * upstream is a vLLM stand-in the scenario starts on loopback.
 */
const gatewayScenarios = ["gateway"];

/** Serves the bench worker (with the Agents SDK, if asked) while `run` runs. */
const serving = async (
  agents: boolean,
  run: (api: Api, server: Server) => Promise<void>,
  extraArgs: string[] = []
): Promise<void> => {
  if (agents) await ensureAgentsSdk(root);
  progress(
    `starting wrangler dev (bench/wrangler.toml${agents ? " with the Agents SDK" : ""})`
  );
  const server = await startServer(root, extraArgs, { agents });
  try {
    await run(new Api(server.baseUrl), server);
  } finally {
    progress("stopping wrangler dev");
    await server.stop();
  }
};

/**
 * Scenarios that build and measure workers of their own, without the
 * server: giant-reads starts one with an inspector port, to read the
 * isolate's heap.
 */
const offline: Record<string, (root: string) => Promise<Row[]>> = {
  bundle,
  startup,
  "giant-reads": giantReads,
  soak: soakScenario
};

/** Runs `run` with the vLLM stand-in up, the server's model upstream given as wrangler arguments. */
const withUpstream = async (
  run: (args: string[], upstream: Upstream) => Promise<void>
): Promise<void> => {
  const upstream = await startUpstream();
  try {
    await run(["--var", `ROOST_MODEL_BASE_URL:${upstream.url}/v1`], upstream);
  } finally {
    await upstream.close();
  }
};

const main = async () => {
  const asked = process.argv.slice(2);
  const known = [
    ...Object.keys(scenarios),
    ...Object.keys(agentsScenarios),
    ...Object.keys(meteredScenarios),
    ...Object.keys(codeScenarios),
    ...gatewayScenarios,
    ...Object.keys(offline)
  ];
  const unknown = asked.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown scenario ${unknown.join(", ")}; choose from ${known.join(", ")}.`
    );
  }
  const chosen = asked.length > 0 ? asked : known;
  const started = Date.now();
  const rows: Row[] = [];
  const live = chosen.filter((name) => name in scenarios);
  if (live.length > 0) {
    await serving(false, async (api, server) => {
      for (const name of live)
        rows.push(...(await scenarios[name]!(api, server)));
    });
  }
  const withAgents = chosen.filter((name) => name in agentsScenarios);
  if (withAgents.length > 0) {
    await serving(true, async (api) => {
      for (const name of withAgents)
        rows.push(...(await agentsScenarios[name]!(api)));
    });
  }
  const metered = chosen.filter((name) => name in meteredScenarios);
  if (metered.length > 0) {
    // The bill counts a model call through the gateway too.
    await withUpstream((upstreamArgs) =>
      serving(
        true,
        async (api, server) => {
          for (const name of metered)
            rows.push(...(await meteredScenarios[name]!(api, server)));
        },
        ["--var", "ROOST_METER:1", ...upstreamArgs]
      )
    );
  }
  const code = chosen.filter((name) => name in codeScenarios);
  if (code.length > 0) {
    await serving(
      false,
      async (api) => {
        for (const name of code)
          rows.push(...(await codeScenarios[name]!(api)));
      },
      ["--var", "ROOST_METER:1"]
    );
  }
  if (chosen.some((name) => gatewayScenarios.includes(name))) {
    await withUpstream((upstreamArgs, upstream) =>
      serving(
        false,
        async (api) => {
          rows.push(...(await gatewayScenario(api, upstream)));
        },
        ["--var", "ROOST_METER:1", ...upstreamArgs]
      )
    );
  }
  for (const name of chosen.filter((name) => name in offline))
    rows.push(...(await offline[name]!(root)));
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const report = [
    "# Roost benchmarks",
    "",
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine(root)}; took ${minutes} min.`,
    "Latencies are client-side, through `wrangler dev` (a frozen build of `bench/wrangler.toml`). Each scenario runs Roost and its reference interleaved (A B A B …) after a warm-up — in short runs where noted, dropping each run's first request, so work an object defers past its response lands on itself, not on the other contender. Every verdict is on a ratio or a size: absolute times on a shared machine are noisy.",
    "",
    renderTable(rows),
    ""
  ].join("\n");
  process.stdout.write(report);
  if (asked.length === 0) {
    writeFileSync(join(root, "bench", "results", "latest.md"), report);
    progress("wrote bench/results/latest.md");
  }
};

await main();
