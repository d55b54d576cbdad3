/**
 * @module The benchmark worker: Roost with the bench, counter and
 * calculator environments, a bare baseline Durable Object, and bench-only routes
 * under /bench/ that answer only when ROOST_BENCH=1. Never deployed.
 */

import { calculator } from "../examples/calculator/index";
import { codeAnalyst } from "../examples/code-analyst/index";
import { counter } from "../examples/counter/index";
import { createRoost, type RoostBindings } from "../src/index";
import { allLayers } from "../src/layers";
import { TaskStats as LayerTaskStats } from "../src/layers/task-stats";
import type { TaskOutcome } from "../src/layers/task-stats/statistics";
import type { Grant } from "../src/protocol/scopes";
import type { OperationInput, OperationName } from "../src/session/operations";
import { type RowCount, RowMeter } from "../src/storage/row-meter";
import { addRows, type Bill, emptyBill } from "./lib/bill";
import { Baseline } from "./worker/baseline";
import {
  bench,
  benchAgents,
  benchBranchable,
  benchPlayed
} from "./worker/bench-environment";
import { benchCode } from "./worker/code-environment";
import { type FrameStub, workerSocket } from "./worker/openenv-socket";
import {
  benchEvaluate,
  benchRescorable,
  benchRubric
} from "./worker/rubric-environments";

const roost = createRoost({
  environments: [
    bench,
    counter,
    // Scenario 14 samples calculator tasks.
    calculator,
    benchEvaluate,
    benchRubric,
    benchRescorable,
    // Scenario 15: code tools (the LOADER binding in bench/wrangler.toml).
    benchCode,
    codeAnalyst,
    // Scenarios 11 and 18: what branchable history costs, and forks at a past step.
    benchBranchable,
    // Scenario 11: what a multi-agent step costs beside a one-agent one.
    benchAgents,
    benchPlayed
  ],
  layers: allLayers(),
  // The benchmarks measure the runtime, not the per-session rate limit.
  rateLimit: false
});

/**
 * The session class with bench-only methods: drop the instance, as an
 * eviction would; and, with ROOST_METER=1, count what each request bills.
 */
export class Session extends roost.Session {
  /** Tells instances apart, so the harness can check that an abort took. */
  readonly #instance = crypto.randomUUID();
  /** Set at the first request: the constructor's own reads land in `rows`. */
  #bill: Bill | undefined;
  /** Milliseconds of each code run, from `LOADER.load` to the entrypoint's reply (scenario 15). */
  #isolateMs: number[] = [];

  constructor(ctx: DurableObjectState, env: BenchBindings) {
    super(ctx, env);
    // Timed here, around the session's isolate starter, so the library
    // carries no timing code: a run is `load`, `getEntrypoint` and `run`
    // until the reply (src/session/isolates.ts). Wall time in the object,
    // which advances across the RPC's I/O.
    const starter = this.runtime.shared.isolates;
    if (starter === undefined) return;
    this.runtime.shared.isolates = {
      run: async (...args) => {
        const started = performance.now();
        try {
          return await starter.run(...args);
        } finally {
          this.#isolateMs.push(performance.now() - started);
        }
      }
    };
  }

  /** The code runs' times since they were last read. */
  isolateTimes(): number[] {
    const times = this.#isolateMs;
    this.#isolateMs = [];
    return times;
  }

  protected override meterRows(env: unknown): boolean {
    return (env as BenchBindings).ROOST_METER === "1";
  }

  /** The bill since it was last read, and a fresh one. */
  bill(): Bill {
    const bill = this.#billed();
    this.#bill = emptyBill();
    return bill;
  }

  #billed(): Bill {
    this.#bill ??= emptyBill();
    return this.#bill;
  }

  /**
   * Runs one request and folds its rows into the bill as it ends: a
   * cursor belongs to the request that opened it, so it is read there,
   * once the request is done with it.
   */
  async #metered<T>(
    count: (bill: Bill) => void,
    into: "rows" | "deferred",
    run: () => Promise<T>
  ): Promise<T> {
    const meter = this.meter;
    if (meter === undefined) return run();
    count(this.#billed());
    // Anything before this request (the constructor's reads) is the operations'.
    const bill = this.#billed();
    bill.rows = addRows(bill.rows, meter.take());
    try {
      return await run();
    } finally {
      const now = this.#billed();
      now[into] = addRows(now[into], meter.take());
    }
  }

  override op<N extends OperationName>(
    name: N,
    input: OperationInput<N>,
    grant: Grant,
    key?: string
  ) {
    return this.#metered(
      (b) => b.requests++,
      "rows",
      () => super.op(name, input, grant, key)
    );
  }

  override fetch(request: Request): Promise<Response> {
    return this.#metered(
      (b) => b.requests++,
      "rows",
      () => super.fetch(request)
    );
  }

  override webSocketMessage(
    ws: WebSocket,
    message: string | ArrayBuffer
  ): Promise<void> {
    return this.#metered(
      (b) => b.socketMessages++,
      "rows",
      () => super.webSocketMessage(ws, message)
    );
  }

  /** The alarm's rows are work the operations deferred past their answers. */
  override alarm(): Promise<void> {
    return this.#metered(
      (b) => b.alarms++,
      "deferred",
      () => super.alarm()
    );
  }

  abortNow(): void {
    this.ctx.abort("bench");
  }

  /** Bytes of the object's database: what Cloudflare bills as stored. */
  storageBytes(): number {
    return this.ctx.storage.sql.databaseSize;
  }

  instance(): string {
    return this.#instance;
  }
}

export { OAuthLedger } from "../src/layers/oauth";
export { Baseline };

/**
 * The task statistics' class, its one write per ended episode billed like
 * a request when ROOST_METER=1 (the bill's scenario reads it at
 * /bench/stats-bill/<environment>).
 */
export class TaskStats extends LayerTaskStats {
  readonly #meter: RowMeter | undefined;
  #bill = emptyBill();

  constructor(ctx: DurableObjectState, env: BenchBindings) {
    super(ctx, env as never);
    this.#meter =
      env.ROOST_METER === "1" ? new RowMeter(ctx.storage) : undefined;
  }

  override recordTaskOutcome(outcome: TaskOutcome): void {
    super.recordTaskOutcome(outcome);
    if (this.#meter === undefined) return;
    this.#bill.requests++;
    this.#bill.rows = addRows(this.#bill.rows, this.#meter.take());
  }

  /** The bill since it was last read, and a fresh one. */
  bill(): Bill {
    const bill = this.#bill;
    this.#bill = emptyBill();
    return bill;
  }
}

interface BenchBindings extends RoostBindings {
  BASELINE: DurableObjectNamespace<Baseline>;
  TASK_STATS: DurableObjectNamespace;
  /** "1" turns the /bench/ routes on; the harness passes it with --var. */
  ROOST_BENCH?: string;
  /** "1" meters every session object's rows and requests (the bill scenario's server only). */
  ROOST_METER?: string;
}

/** Stubs are typed by hand: the methods take and return plain data. */
interface AbortableStub {
  abortNow(): Promise<void>;
}
interface SessionStub extends AbortableStub {
  instance(): Promise<string>;
  isolateTimes(): Promise<number[]>;
  bill(): Promise<Bill>;
  storageBytes(): Promise<number>;
}
interface BaselineStub extends AbortableStub, FrameStub {
  append(json: string): Promise<{ id: number }>;
  billedAppend(json: string): Promise<{ id: number; rows: RowCount }>;
  fetch(request: Request): Promise<Response>;
  growWholeState(): Promise<unknown>;
  broadcast(json: string, frames: number): Promise<{ id: number }>;
}

/** Frames the baseline broadcasts per round trip: as many as a one-call step streams. */
const FRAMES = 5;

/** An abort rejects the call that made it; that is the expected outcome. */
const abort = async (stub: AbortableStub): Promise<Response> => {
  try {
    await stub.abortNow();
  } catch {
    // "bench": the instance is gone; the next request builds a new one.
  }
  return new Response(null, { status: 204 });
};

const benchRoute = async (
  request: Request,
  env: BenchBindings,
  path: string[]
): Promise<Response | null> => {
  const [area, name, action] = path;
  // The openenv scenario's bare DO: a new object per socket, as Roost
  // makes a session per OpenEnv socket; the socket held in the worker or
  // in the object.
  if (area === "openenv" && action === "ws") {
    const stub = env.BASELINE.get(
      env.BASELINE.newUniqueId()
    ) as unknown as BaselineStub;
    if (name === "worker") return workerSocket(stub);
    if (name === "object") return stub.fetch(request);
    return null;
  }
  if (area === "baseline" && name !== undefined) {
    const stub = env.BASELINE.get(
      env.BASELINE.idFromName(name)
    ) as unknown as BaselineStub;
    if (action === "ws") return stub.fetch(request);
    if (request.method !== "POST") return null;
    // Read the JSON, append it, answer JSON: the least a step must do.
    if (action === undefined)
      return Response.json(
        await stub.append(JSON.stringify(await request.json()))
      );
    if (action === "fetch") return stub.fetch(request);
    if (action === "billed")
      return Response.json(
        await stub.billedAppend(JSON.stringify(await request.json()))
      );
    if (action === "broadcast")
      return Response.json(
        await stub.broadcast(JSON.stringify(await request.json()), FRAMES)
      );
    // Read before answering (see below).
    await request.arrayBuffer();
    if (action === "whole-state")
      return Response.json(await stub.growWholeState());
    if (action === "abort") return abort(stub);
    return null;
  }
  if (request.method !== "POST") return null;
  // Read before answering: a response sent while the body is unread
  // breaks the connection wrangler dev's proxy keeps to the worker, and
  // the proxy answers the next request on it with 503 "Your worker
  // restarted mid-request" (the bill's lost runs).
  await request.arrayBuffer();
  // The task statistics object of environment `name` (layers/task-stats).
  if (area === "stats-bill" && name !== undefined) {
    const stub = env.TASK_STATS.get(
      env.TASK_STATS.idFromName(name)
    ) as unknown as { bill(): Promise<Bill> };
    return Response.json(await stub.bill());
  }
  if (
    (area === "abort" ||
      area === "instance" ||
      area === "isolates" ||
      area === "bill" ||
      area === "storage") &&
    name !== undefined
  ) {
    const stub = env.SESSIONS.get(
      env.SESSIONS.idFromString(name)
    ) as unknown as SessionStub;
    if (area === "bill") return Response.json(await stub.bill());
    if (area === "isolates") return Response.json(await stub.isolateTimes());
    if (area === "storage")
      return Response.json({ bytes: await stub.storageBytes() });
    return area === "abort"
      ? abort(stub)
      : Response.json({ instance: await stub.instance() });
  }
  return null;
};

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const [first, ...rest] = url.pathname.split("/").filter(Boolean);
    if (first === "bench" && env.ROOST_BENCH === "1") {
      const response = await benchRoute(request, env, rest);
      if (response !== null) return response;
    }
    return roost.fetch(request, env, ctx);
  }
} satisfies ExportedHandler<BenchBindings>;
