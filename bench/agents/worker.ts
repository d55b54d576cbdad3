/**
 * @module The bench worker with the Agents SDK beside Roost, for
 * `npm run bench -- agents-sdk`: everything bench/worker.ts serves, plus
 * `BenchAgent` at /bench/agents/bench-agent/:name through the SDK's own
 * `routeAgentRequest`. bench/lib/server.ts adds its binding and
 * nodejs_compat (which the SDK needs) to bench/wrangler.toml for this build
 * only, so the other scenarios run on the plain bench worker.
 */

import { routeAgentRequest } from "agents";
import bench from "../worker";
import type { BenchAgent } from "./agent";

export { Baseline, OAuthLedger, Session, TaskStats } from "../worker";
export { BenchAgent } from "./agent";

type Bindings = Parameters<typeof bench.fetch>[1] & {
  BENCH_AGENT: DurableObjectNamespace<BenchAgent>;
};

export default {
  async fetch(request, env, ctx) {
    if (env.ROOST_BENCH === "1") {
      // Only the Agent's binding: given all of env, routeAgentRequest would
      // route /bench/agents/sessions/… to Roost's objects too.
      const routed = await routeAgentRequest(
        request,
        { BENCH_AGENT: env.BENCH_AGENT },
        { prefix: "bench/agents" }
      );
      if (routed !== null) return routed;
    }
    return bench.fetch(request, env, ctx);
  }
} satisfies ExportedHandler<Bindings>;
