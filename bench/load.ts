/**
 * @module `npm run load`: N concurrent clients × M steps against the bench
 * worker under a local `wrangler dev` (its rate limit is off), first all on
 * one session, then each on a session of its own. Every step is the counter
 * environment's `incr` with a unique Idempotency-Key; a client retries a 503
 * or a failed connection with the same key, a few times. Afterwards the
 * acknowledged steps are checked against each session's `steps` and its
 * counter, and one acknowledged key per client is replayed to check that it
 * runs nothing. Prints throughput, p50/p99 latency, errors and lost steps;
 * exits 1 unless there are no errors and no lost or duplicated steps.
 *
 * N and M: `npm run load -- --clients 32 --steps 100`, or LOAD_CLIENTS and
 * LOAD_STEPS (defaults 16 × 50).
 */

import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Api, type BenchSession, HttpError, stepBody } from "./lib/api";
import { machine } from "./lib/machine";
import { pool } from "./lib/pool";
import { startServer } from "./lib/server";
import { percentile, progress } from "./lib/stats";
import { markdownTable, ms } from "./lib/table";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const options = (): { clients: number; steps: number } => {
  const { values } = parseArgs({
    options: {
      clients: { type: "string", default: process.env.LOAD_CLIENTS ?? "16" },
      steps: { type: "string", default: process.env.LOAD_STEPS ?? "50" }
    }
  });
  const whole = (name: string, text: string): number => {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new Error(`${name} must be a whole number ≥ 1, not ${text}.`);
    return n;
  };
  return {
    clients: whole("clients", values.clients),
    steps: whole("steps", values.steps)
  };
};

/** Far above any run's steps, so no episode ends under the load. */
const TASK = { target: 1_000_000 };
/** The same bytes for every step, so a retry's body matches its key. */
const STEP = stepBody("incr");
/** Attempts per step in all; after the last, the step counts as an error. */
const ATTEMPTS = 5;
/** Longest wait between attempts, also the cap on Retry-After. */
const MAX_BACKOFF_MS = 1000;

interface Tally {
  /** Milliseconds from first attempt to acknowledgement, per acknowledged step. */
  latencies: number[];
  /** HTTP requests sent, retries included. */
  requests: number;
  retries: number;
  /** Why attempts were retried: the status and the start of the answer, counted. */
  retryCauses: Map<string, number>;
  /** Steps still failing after every attempt, or failing in a way not worth a retry. */
  errors: number;
  acked: number;
  /** A few distinct error descriptions, for the report. */
  samples: Set<string>;
}

const newTally = (): Tally => ({
  latencies: [],
  requests: 0,
  retries: 0,
  retryCauses: new Map(),
  errors: 0,
  acked: 0,
  samples: new Set()
});

const sleep = (msToWait: number) =>
  new Promise((resolve) => setTimeout(resolve, msToWait));

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error
    ? `${error.message}: ${cause.message}`
    : error.message;
};

/**
 * One step with `key`, retried on a 503 or a lost connection. Answers
 * whether it was acknowledged (2xx).
 */
const step = async (
  api: Api,
  s: BenchSession,
  key: string,
  tally: Tally
): Promise<boolean> => {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    tally.requests++;
    let failure: string;
    let wait = Math.min(MAX_BACKOFF_MS, 50 * 2 ** attempt);
    let retryable: boolean;
    try {
      const answer = await api.send("POST", `/v1/sessions/${s.id}/step`, {
        body: STEP,
        token: s.token,
        headers: { "idempotency-key": key }
      });
      if (answer.ok) {
        tally.acked++;
        tally.latencies.push(performance.now() - started);
        return true;
      }
      failure = `${answer.status} ${answer.text.slice(0, 300)}`;
      retryable = answer.status === 503;
      const after = Number(answer.headers.get("retry-after"));
      if (Number.isFinite(after) && after > 0)
        wait = Math.min(MAX_BACKOFF_MS, after * 1000);
    } catch (error) {
      // No answer at all: a refused or reset connection.
      failure = `network: ${describe(error)}`;
      retryable = true;
    }
    if (!retryable || attempt >= ATTEMPTS) {
      tally.errors++;
      if (tally.samples.size < 5)
        tally.samples.add(`${failure} (after ${attempt} attempts)`);
      return false;
    }
    tally.retries++;
    const cause = failure.slice(0, 80);
    tally.retryCauses.set(cause, (tally.retryCauses.get(cause) ?? 0) + 1);
    await sleep(wait);
  }
};

interface Client {
  session: BenchSession;
  /** The key of its first acknowledged step, replayed after the run. */
  firstAcked?: string;
}

interface Outcome {
  scenario: string;
  clients: number;
  steps: number;
  elapsedMs: number;
  tally: Tally;
  /** Acknowledged steps the sessions do not show. */
  lost: number;
  /** Steps the sessions show beyond those acknowledged (a step answered with an error may have committed), replays included. */
  duplicated: number;
  /** Whether the counters agree with the sessions' `steps`. */
  consistent: boolean;
  notes: string[];
}

/** What the sessions hold: the sum of their `steps` and of their counters. */
const counted = async (
  api: Api,
  sessions: readonly BenchSession[]
): Promise<{ steps: number; count: number }> => {
  let steps = 0;
  let count = 0;
  for (const s of sessions) {
    steps += (await api.status(s)).steps;
    count += Number((await api.state(s)).count ?? 0);
  }
  return { steps, count };
};

/** Runs `steps` steps on each client at once, then checks the sessions. */
const run = async (
  api: Api,
  scenario: string,
  clients: Client[],
  steps: number
): Promise<Outcome> => {
  const tally = newTally();
  const runId = randomUUID().slice(0, 8);
  progress(`${scenario}: ${clients.length} clients × ${steps} steps`);
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = 0; i < steps; i++) {
        const key = `load-${runId}-${c}-${i}`;
        if ((await step(api, client.session, key, tally)) && !client.firstAcked)
          client.firstAcked = key;
      }
    })
  );
  const elapsedMs = performance.now() - started;
  const sessions = [...new Set(clients.map((c) => c.session))];
  const notes: string[] = [];
  const before = await counted(api, sessions);
  const consistent = before.count === before.steps;
  if (!consistent)
    notes.push(
      `counters sum to ${before.count} but \`steps\` to ${before.steps}`
    );
  // A replay of an acknowledged key must answer 2xx and run nothing.
  progress(`${scenario}: checking counts and replaying one key per client`);
  const replays = newTally();
  for (const client of clients) {
    if (client.firstAcked !== undefined)
      await step(api, client.session, client.firstAcked, replays);
  }
  const after = await counted(api, sessions);
  if (replays.errors > 0)
    notes.push(
      `${replays.errors} replays failed: ${[...replays.samples].join("; ")}`
    );
  tally.errors += replays.errors;
  if (tally.samples.size > 0)
    notes.push(`errors: ${[...tally.samples].join("; ")}`);
  if (tally.retries > 0)
    notes.push(
      `retried (not errors): ${[...tally.retryCauses]
        .map(([cause, n]) => `${n} × \`${cause}…\``)
        .join("; ")}`
    );
  const lost = Math.max(0, tally.acked - before.steps);
  const duplicated =
    Math.max(0, before.steps - tally.acked) + (after.steps - before.steps);
  if (lost > 0 || duplicated > 0 || tally.errors > 0)
    progress(
      `${scenario}: acknowledged ${tally.acked}, sessions show ${before.steps} (${after.steps} after replays), ${tally.errors} errors`
    );
  return {
    scenario,
    clients: clients.length,
    steps,
    elapsedMs,
    tally,
    lost,
    duplicated,
    consistent,
    notes
  };
};

/** Sessions created or reset at once while setting up: setup is not what is measured. */
const SETUP_CONCURRENCY = 16;

/** Setup calls retried after a 503 or a lost connection. */
let setupRetries = 0;

/**
 * `fn`, again after a 503 or a lost connection, up to ATTEMPTS times. Only
 * for setup: a repeated create leaves an unused session behind, and a
 * repeated reset starts a fresh episode, neither of which matters here.
 */
const setupCall = async <T>(fn: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const retryable = !(error instanceof HttpError) || error.status === 503;
      if (!retryable || attempt >= ATTEMPTS) throw error;
      setupRetries++;
      await sleep(Math.min(MAX_BACKOFF_MS, 50 * 2 ** attempt));
    }
  }
};

/** A counter session in its first episode, with a target no run reaches. */
const counterSession = async (api: Api): Promise<BenchSession> => {
  const s = await setupCall(() => api.create("counter", TASK));
  await setupCall(() => api.reset(s, TASK));
  return s;
};

const row = (o: Outcome): string[] => [
  o.scenario,
  `${o.clients} × ${o.steps}`,
  `${o.tally.requests} (${o.tally.retries} retries)`,
  `${((o.tally.acked * 1000) / o.elapsedMs).toFixed(0)} steps/s`,
  ms(percentile(o.tally.latencies, 50)),
  ms(percentile(o.tally.latencies, 99)),
  String(o.tally.errors),
  String(o.lost),
  String(o.duplicated)
];

const main = async () => {
  const { clients, steps } = options();
  const started = Date.now();
  progress("starting wrangler dev (bench/wrangler.toml)");
  const server = await startServer(root);
  const outcomes: Outcome[] = [];
  try {
    const api = new Api(server.baseUrl);
    progress("warm-up: one session, 20 steps");
    const warm = await counterSession(api);
    for (let i = 0; i < 20; i++)
      await step(api, warm, `warm-${randomUUID()}`, newTally());

    const shared = await counterSession(api);
    outcomes.push(
      await run(
        api,
        "one session",
        Array.from({ length: clients }, () => ({ session: shared })),
        steps
      )
    );

    progress(`many sessions: creating and resetting ${clients} sessions`);
    const own: Client[] = [];
    await pool(
      Array.from({ length: clients }, (_, i) => i),
      SETUP_CONCURRENCY,
      async () => {
        own.push({ session: await counterSession(api) });
      }
    );
    outcomes.push(await run(api, "many sessions", own, steps));
  } finally {
    progress("stopping wrangler dev");
    await server.stop();
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const notes = outcomes.flatMap((o) =>
    o.notes.map((n) => `- ${o.scenario}: ${n}`)
  );
  if (setupRetries > 0)
    notes.push(
      `- setup: ${setupRetries} creates or resets retried after a 503 or a lost connection`
    );
  const report = [
    "# Roost load",
    "",
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine(root)}; took ${minutes} min.`,
    `Each client runs its steps one after another, all clients at once; a step is one \`incr\` with its own Idempotency-Key, retried (same key, up to ${ATTEMPTS} attempts) on 503 or a lost connection. Latency is per acknowledged step, retries included; throughput is acknowledged steps over the wall time of the run. Lost and duplicated steps compare the acknowledged steps with the sessions' \`steps\` and counters, after replaying one acknowledged key per client.`,
    "",
    markdownTable(
      [
        "scenario",
        "clients × steps",
        "requests",
        "throughput",
        "p50",
        "p99",
        "errors",
        "lost steps",
        "duplicated steps"
      ],
      outcomes.map(row)
    ),
    ...(notes.length > 0 ? ["", ...notes] : []),
    ""
  ].join("\n");
  process.stdout.write(report);
  const clean = outcomes.every(
    (o) =>
      o.tally.errors === 0 && o.lost === 0 && o.duplicated === 0 && o.consistent
  );
  if (!clean) process.exitCode = 1;
};

await main();
