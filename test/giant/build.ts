/**
 * @module Building giant sessions through the public API only: store
 * entries by `POST …/environment/:tool/:name`, the transcript by steps,
 * and the event log by what those write.
 */

import {
  actionOf,
  type EntryPlan,
  type KeyPlan,
  LIMITS,
  metadataOf,
  objectOf,
  STEPS,
  STORE_PLAN
} from "./plan";
import type { SessionRef, Wire } from "./wire";

/** What a build wrote, for the report. */
export interface Built {
  session: SessionRef;
  storeBytes: number;
  transcriptBytes: number;
  ms: number;
}

interface Created {
  session_id: string;
  token: string;
  ws_url: string;
}

/**
 * A counter session whose target is never reached by steps without tool
 * calls, so every step of the build is taken and the episode never ends.
 */
export const createCounter = async (wire: Wire): Promise<SessionRef> => {
  const created = await wire.json<Created>("POST", "/v1/sessions", {
    body: { environment: "counter", task: { target: 1_000_000 } }
  });
  const session = {
    id: created.session_id,
    token: created.token,
    wsUrl: created.ws_url
  };
  await wire.post(session, "/reset", {});
  return session;
};

/** A request body, refused here if the plan ever outgrows the request limit. */
const bodyOf = (value: unknown): { body: unknown; bytes: number } => {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > LIMITS.requestBodyBytes) {
    throw new Error(
      `A planned request is ${bytes} bytes, over the ${LIMITS.requestBodyBytes}-byte request limit: fix test/giant/plan.ts.`
    );
  }
  return { body: value, bytes };
};

export const addEntry = async (
  wire: Wire,
  session: SessionRef,
  key: KeyPlan,
  entry: EntryPlan
): Promise<number> => {
  const { body, bytes } = bodyOf({
    objects: Array.from({ length: entry.objects }, (_, i) =>
      objectOf(key, entry, i)
    ),
    metadata: metadataOf(key, entry)
  });
  // An Idempotency-Key, as a client that may retry would send.
  await wire.post(session, `/environment/${key.tool}/${key.name}`, body, {
    "idempotency-key": `giant-${key.k}-${entry.index}`
  });
  return bytes;
};

export const step = async (
  wire: Wire,
  session: SessionRef,
  s: number
): Promise<number> => {
  const { body, bytes } = bodyOf({ action: actionOf(s) });
  const out = await wire.post<{ done: boolean; truncated: boolean }>(
    session,
    "/step",
    body,
    { "idempotency-key": `giant-step-${s}` }
  );
  if (out.done || out.truncated) {
    throw new Error(`The episode ended at step ${s}; the plan needs ${STEPS}.`);
  }
  return bytes;
};

/**
 * The giant session: the store's entries round-robin over its keys (each
 * key created in plan order), with the steps spread between the rounds,
 * so the retained event log ends with both results and messages in it.
 */
export const buildGiant = async (
  wire: Wire,
  progress: (line: string) => void = () => {}
): Promise<Built> => {
  const started = performance.now();
  const session = await createCounter(wire);
  const rounds = Math.max(...STORE_PLAN.map((k) => k.entries.length));
  const stepsPerRound = Math.ceil(STEPS / rounds);
  let storeBytes = 0;
  let transcriptBytes = 0;
  let s = 0;
  for (let round = 0; round < rounds; round++) {
    for (const key of STORE_PLAN) {
      const entry = key.entries[round];
      if (entry) storeBytes += await addEntry(wire, session, key, entry);
    }
    for (let n = 0; n < stepsPerRound && s < STEPS; n++, s++) {
      transcriptBytes += await step(wire, session, s);
    }
    progress(
      `round ${round + 1}/${rounds}: ${(storeBytes / 1e6).toFixed(0)} MB of store, ${s} steps`
    );
  }
  return {
    session,
    storeBytes,
    transcriptBytes,
    ms: performance.now() - started
  };
};

/** Tool calls per step of the count-limit session: the most an action may make. */
const CALLS_PER_STEP = 64;

/** More events than one step of the long log streams (about four per call). */
export const LONG_STEP_EVENTS_BOUND = 5 * CALLS_PER_STEP;

/**
 * A counter session whose log passes the retention count (10 000 events)
 * with small events: steps of 64 `incr` calls, each call four events.
 */
export const buildLongLog = async (
  wire: Wire,
  events: number
): Promise<SessionRef> => {
  const session = await createCounter(wire);
  const action = {
    role: "assistant",
    tool_calls: Array.from({ length: CALLS_PER_STEP }, (_, i) => ({
      id: `c${i}`,
      type: "function",
      function: { name: "incr", arguments: "{}" }
    }))
  };
  const steps = Math.ceil(events / (4 * CALLS_PER_STEP));
  for (let s = 0; s < steps; s++) {
    await wire.post(session, "/step", { action });
  }
  return session;
};
