/**
 * @module What the leakage check looks for (each hidden value, under its
 * key) and how it reports one it saw: the key, the task, the step, the
 * tool and the place, so the author can go to the line that showed it.
 */

import type { JsonValue } from "../json";
import { type TaskChoice, taskName, textOf } from "./episode";

/** The key the local check writes its canary under. */
export const CANARY_KEY = "__roost_validate_canary";

/** One value a model must not see, and where in the hidden store it is. */
export interface Secret {
  /** The hidden store's key, with the path inside its value (`answer.word`). */
  key: string;
  value: string;
}

/**
 * Strings and long numbers in the hidden store, each under its key; short
 * ones would match by chance.
 */
export const secretsOf = (hidden: Record<string, JsonValue>): Secret[] => {
  const found: Secret[] = [];
  const walk = (value: JsonValue | undefined, key: string) => {
    if (typeof value === "string" || typeof value === "number") {
      const text = String(value);
      if (text.length >= 4) found.push({ key, value: text });
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${key}.${i}`);
    } else if (value !== null && typeof value === "object")
      for (const [k, v] of Object.entries(value)) walk(v, `${key}.${k}`);
  };
  for (const [key, value] of Object.entries(hidden)) walk(value, key);
  return found;
};

/** A secret seen: in which place, at which step (0: the reset), shown by which tool. */
export interface Sighting {
  secret: Secret;
  place: string;
  step: number;
  /** The place was read once the episode ended, so the step it appeared at is not known. */
  afterEnd?: boolean;
  tool?: string;
}

/**
 * Watches one episode for its secrets. A secret the policy's own moves
 * held (an oracle that submits the answer) is the model's already: an
 * echo of it from that step on is no leak.
 */
export const watchFor = (secrets: readonly Secret[]) => {
  const knownFrom = new Map<Secret, number>();
  const sightings: Sighting[] = [];
  return {
    sightings,
    count: secrets.length,
    /** The action of `step`, which the model sent. */
    moved(step: number, action: unknown) {
      const text = textOf(action);
      for (const s of secrets)
        if (!knownFrom.has(s) && text.includes(s.value)) knownFrom.set(s, step);
    },
    /** Records the secrets `value` shows that the model did not know at `step`. */
    look(
      place: string,
      value: unknown,
      step: number,
      where: { tool?: string; afterEnd?: boolean } = {}
    ) {
      const text = typeof value === "string" ? value : textOf(value);
      for (const secret of secrets) {
        const known = knownFrom.get(secret);
        if (
          (known === undefined || known > step) &&
          text.includes(secret.value)
        )
          sightings.push({
            secret,
            place,
            step,
            ...(where.tool === undefined ? {} : { tool: where.tool }),
            ...(where.afterEnd ? { afterEnd: true } : {})
          });
      }
    }
  };
};

const named = (secret: Secret): string => {
  if (secret.key === CANARY_KEY) return "the hidden store's canary";
  const value =
    secret.value.length > 40 ? `${secret.value.slice(0, 40)}…` : secret.value;
  return `hidden key "${secret.key}" (${JSON.stringify(value)})`;
};

/**
 * The first sighting in full (the policy only past the reset, where it
 * had not moved yet), then the other places the same episode showed a
 * secret: `hidden key "word" ("crane") appears in observations at step 6
 * of task 0 (tool guess), played by guess's examples`.
 */
export const describeLeak = (
  sightings: readonly Sighting[],
  task: TaskChoice,
  driver: string
): string => {
  // Places read once the episode ended are searched after it; the
  // earliest step is the one to report.
  const first = [...sightings].sort((a, b) => a.step - b.step)[0]!;
  const when =
    first.step === 0
      ? "at reset"
      : first.afterEnd
        ? `after step ${first.step}`
        : `at step ${first.step}`;
  const places = new Set(sightings.map((s) => s.place));
  // The transcript and the event log repeat the observations: named
  // beside them, they would be named for every leak into them.
  const echoes = places.has("observations") ? ["the transcript", "events"] : [];
  const others = [...places].filter(
    (p) => p !== first.place && !echoes.includes(p)
  );
  const by = first.step === 0 ? "" : `, played by ${driver}`;
  return `${named(first.secret)} appears in ${first.place} ${when} of ${taskName(task)}${first.tool === undefined ? "" : ` (tool ${first.tool})`}${by}${others.length === 0 ? "" : `; also in ${others.join(", ")}`}`;
};
