/** @module The Node end-to-end tests' worker: the deployable worker's environments plus a test-only one, and an abort route for fault injection. */

import { calculator } from "../../examples/calculator/index";
import { catalog } from "../../examples/catalog/index";
import { codeAnalyst } from "../../examples/code-analyst/index";
import { counter } from "../../examples/counter/index";
import { mcpEverything } from "../../examples/mcp-everything/index";
import { story } from "../../examples/story/index";
import { support } from "../../examples/support/index";
import { tictactoe, tictactoeBot } from "../../examples/tictactoe/index";
import type { RoostBindings } from "../../src/http/env";
import { createRoost } from "../../src/index";
import { allLayers } from "../../src/layers";
import { branchy } from "../fixtures/branchy";
import { bulk } from "../fixtures/environments";
import { graded } from "../fixtures/graded";
import { lateLeak } from "../fixtures/late-leak";
import { pupil } from "../fixtures/pupil";
import { fragile } from "./fragile";
import { ledger } from "./ledger";
import { nap } from "./nap";
import { rescored } from "./rescored";
import { forgetsOnFork, framesAnswer } from "./unfaithful";

// The demo worker's environments (code-analyst's isolates come from the
// LOADER binding in this folder's wrangler.toml), plus `nap`, whose step a
// test can abort while it is in flight, `ledger`, which grows past a read's budget, and
// `fragile`, whose tool throws, and `graded`, whose rubrics have a metric,
// a gate, a component that always throws and an episode rubric; two
// that only `validate --url` can fail (unfaithful.ts); and `bulk`, whose
// step stages as many bytes as a test asks (one request's heap), and
// `rescored`, the same under a rubric registered for re-scoring, and
// `branchy`, branchable, for forks at a past step; `late-leak`, which
// shows its answer only when the guesses run out.
const worker = createRoost({
  layers: allLayers(),
  environments: [
    counter,
    story,
    tictactoe,
    tictactoeBot,
    support,
    calculator,
    catalog,
    codeAnalyst,
    mcpEverything,
    nap,
    ledger,
    fragile,
    graded,
    framesAnswer,
    forgetsOnFork,
    pupil,
    bulk,
    rescored,
    branchy,
    lateLeak
  ]
});
const RoostSession = worker.Session;

const ABORT_PATH = "/__e2e/abort";
const SESSION_ABORT = /^\/__e2e\/sessions\/([0-9a-f]{64})\/abort$/;

/** Roost's session object, which dies on request as if evicted or crashed. */
export { OAuthLedger, TaskStats } from "../../src/layers";

export class Session extends RoostSession {
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === ABORT_PATH) {
      this.ctx.abort("aborted by an end-to-end test");
    }
    return super.fetch(request);
  }
}

export default {
  async fetch(request, env, ctx) {
    const match = SESSION_ABORT.exec(new URL(request.url).pathname);
    if (request.method !== "POST" || match?.[1] === undefined) {
      return worker.fetch(request, env, ctx);
    }
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(match[1]));
    // The abort rejects the call that asked for it; the next call reaches a
    // new instance that reloads from storage.
    const survived = await stub.fetch(`https://session${ABORT_PATH}`).then(
      () => true,
      () => false
    );
    return survived
      ? Response.json({ error: "the object was not aborted" }, { status: 500 })
      : new Response(null, { status: 204 });
  }
} satisfies ExportedHandler<RoostBindings>;
