/**
 * @module An episode's parts rebuilt in memory from its logged events and
 * recorded hidden changes, as they stood at each step: what a re-scored
 * rubric reads as `ctx`. What the log cannot rebuild exactly is refused
 * when read, with a message saying why, never given wrong.
 */

import { RoostError } from "../errors";
import type { JsonObject, JsonValue } from "../json";
import type { Message } from "../messages/schema";
import { State } from "../state/state";
import type {
  StateBackend,
  StateShape,
  TranscriptBackend
} from "../state/types";
import { createEnvironmentStore } from "../store/environment-store";
import type {
  EnvironmentStore,
  HiddenStore,
  StoreBackend
} from "../store/types";
import type { Environment } from "./define-environment";

/** An event as the log holds it: `{ seq, type, episode, at, ...data }`. */
export interface LoggedEvent {
  seq: number;
  type: string;
  [field: string]: unknown;
}

const unrecorded = (what: string): RoostError =>
  new RoostError(
    "conflict",
    `Re-scoring cannot read ${what}: the event log does not hold it as it was.`
  );

/** A hidden store whose keys too large to record are refused when read. */
class ReplayedHidden implements HiddenStore {
  readonly store: HiddenStore;
  readonly lost = new Set<string>();

  constructor(store: HiddenStore) {
    this.store = store;
  }

  #check(key: string): void {
    if (this.lost.has(key))
      throw unrecorded(
        `hidden key "${key}" (its value was too large to record)`
      );
  }
  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    this.#check(key);
    return this.store.get<T>(key);
  }
  set(key: string, value: JsonValue): void {
    this.lost.delete(key);
    this.store.set(key, value);
  }
  has(key: string): boolean {
    this.#check(key);
    return this.store.has(key);
  }
  delete(key: string): boolean {
    this.lost.delete(key);
    return this.store.delete(key);
  }
  keys(): string[] {
    return this.store.keys();
  }
}

/** Methods of the store that read every key; the rest name one first. */
const WHOLE_STORE = new Set([
  "keys",
  "keyPage",
  "isEmpty",
  "page",
  "recent",
  "llmView",
  "toJSON"
]);

const keyOf = (tool: string, name: string): string => `${tool}\u0000${name}`;

/**
 * Where a replay writes: memory for re-scoring, the session's own tables
 * for a fork at a past step.
 */
export interface ReplayBackends {
  store: StoreBackend;
  state: StateBackend;
  transcript: TranscriptBackend;
  hidden: HiddenStore;
}

/** Events of mutations that never committed: from a `step.aborted`'s `first_seq` to it. */
export const committedOnly = (
  events: readonly LoggedEvent[]
): LoggedEvent[] => {
  const aborted = events
    .filter((e) => e.type === "step.aborted")
    .map((e) => [e.first_seq as number, e.seq] as const);
  return events.filter(
    (e) =>
      e.type !== "step.aborted" &&
      !aborted.some(([from, to]) => e.seq >= from && e.seq < to)
  );
};

/** Everything a rubric reads of an episode, kept up to date event by event. */
export class ReplayedParts {
  task: unknown;
  readonly hidden: ReplayedHidden;
  readonly #stateBackend: StateBackend;
  readonly #transcript: TranscriptBackend;
  readonly state: State<StateShape>;
  readonly #store: StoreBackend;
  readonly #environment: EnvironmentStore;
  /** Keys whose entries the log cannot give (replaced, or written without a result event). */
  readonly #tainted = new Set<string>();
  /** Keys a `store.changed` add announced; their `result` event follows. */
  readonly #announced = new Set<string>();
  /** The parts of a split result event so far. */
  #parts: JsonObject[] = [];
  readonly environment: EnvironmentStore;

  constructor(environment: Environment, backends: ReplayBackends) {
    this.hidden = new ReplayedHidden(backends.hidden);
    this.#stateBackend = backends.state;
    this.#transcript = backends.transcript;
    this.#store = backends.store;
    this.state = new State(
      environment.state as never,
      this.#stateBackend,
      this.#transcript
    );
    this.#environment = createEnvironmentStore(this.#store);
    this.environment = this.#guarded();
  }

  /** What the log could not rebuild: store keys (`tool/name`) and hidden keys. */
  get unrebuilt(): string[] {
    // An add announced last, whose result event never came, was code's.
    for (const key of this.#announced) this.#tainted.add(key);
    this.#announced.clear();
    return [
      ...[...this.#tainted].map((k) => k.replace("\u0000", "/")),
      ...[...this.hidden.lost].map((k) => `hidden "${k}"`)
    ];
  }

  get messages(): Message[] {
    return this.#transcript.list(0, this.#transcript.count());
  }

  /** Applies one logged event of the episode (aborted mutations' left out). */
  apply(event: LoggedEvent): void {
    const op = event.type === "store.changed" ? event.op : undefined;
    if (event.type !== "result" && op !== "add") {
      // An add whose result event never came was written by code, not a
      // tool's Result: its objects are not in the log.
      for (const key of this.#announced) this.#tainted.add(key);
      this.#announced.clear();
    }
    switch (event.type) {
      case "state.changed":
        this.#stateBackend.set(event.key as string, event.value as JsonValue);
        return;
      case "message":
        this.#transcript.append([event.message as Message]);
        return;
      case "result":
        this.#result(event);
        return;
      case "store.changed": {
        const key = keyOf(event.tool as string, event.name as string);
        if (op === "add") this.#announced.add(key);
        else if (op === "replace") this.#tainted.add(key);
        else if (!this.#tainted.has(key))
          this.#environment.remove(
            event.tool as string,
            event.name as string,
            event.index as number | undefined
          );
      }
    }
  }

  #result(event: LoggedEvent): void {
    const part = event.part as { index: number; count: number } | undefined;
    this.#parts.push(...(event.objects as JsonObject[]));
    if (part !== undefined && part.index < part.count - 1) return;
    const objects = this.#parts;
    this.#parts = [];
    const tool = event.tool as string;
    const name = event.name as string;
    const key = keyOf(tool, name);
    this.#announced.delete(key);
    if (this.#tainted.has(key)) return;
    const entry = this.#environment.addObjects(
      tool,
      name,
      objects,
      event.metadata as JsonObject,
      {
        includeDuplicates: true,
        ...(event.payload_type === undefined
          ? {}
          : { payloadType: event.payload_type as string }),
        ...(event.mapping === undefined
          ? {}
          : { mapping: event.mapping as never })
      }
    );
    if (entry.index !== event.index) this.#tainted.add(key);
  }

  /** The store as a rubric reads it: a tainted key is refused, not given wrong. */
  #guarded(): EnvironmentStore {
    const tainted = this.#tainted;
    const store = this.#environment;
    return new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const one =
            typeof args[0] === "string" && typeof args[1] === "string"
              ? keyOf(args[0], args[1])
              : undefined;
          const refused =
            one !== undefined && !WHOLE_STORE.has(String(prop))
              ? tainted.has(one)
              : tainted.size > 0;
          if (refused) {
            throw unrecorded(
              `the environment store${one === undefined ? "" : ` under ${String(args[0])}/${String(args[1])}`} (an entry was replaced, or added by code other than a tool's Result)`
            );
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
    });
  }
}
