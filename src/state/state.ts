/** @module `State`: typed state over a storage backend, with the transcript as its `messages` key. */

import { RoostError } from "../errors";
import { cloneJson, type JsonValue, utf8Length } from "../json";
import type { Message } from "../messages/schema";
import type { StateDefinition } from "./define-state";
import { jsonProblem } from "./json-check";
import { prepareMessages } from "./prepare-messages";
import { notJson, tooLarge, unknownKey } from "./state-errors";
import type {
  SetOptions,
  StateAccess,
  StateBackend,
  StateReads,
  StateShape,
  StateValues,
  TranscriptBackend
} from "./types";

export interface StateOptions {
  /** Largest value (and message) as UTF-8 JSON; default 1 MiB. */
  maxValueBytes?: number;
}

export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

type Key<Shape extends StateShape> = keyof StateValues<Shape> & string;

/**
 * Typed state as tools and sessions use it. A key the backend does not hold
 * reads as the definition's initial value (its zod default), so resetting
 * an episode is emptying the backend: nothing has to be seeded. Values are
 * copied in and out; a write is computed and checked in full before the
 * one backend call that stores it, so a rejected write changes nothing.
 *
 * @example
 * const state = new State(definition, new MemoryStateBackend(), new MemoryTranscriptBackend());
 * state.set("docs", ["a"]); // merged into the list
 */
export class State<Shape extends StateShape = StateShape>
  implements StateAccess<Shape>
{
  readonly definition: StateDefinition<Shape>;
  #backend: StateBackend;
  #transcript: TranscriptBackend;
  #maxValueBytes: number;

  constructor(
    definition: StateDefinition<Shape>,
    backend: StateBackend,
    transcript: TranscriptBackend,
    options: StateOptions = {}
  ) {
    this.definition = definition;
    this.#backend = backend;
    this.#transcript = transcript;
    this.#maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  }

  /** How many messages the transcript holds, without reading them. */
  messageCount(): number {
    return this.#transcript.count();
  }

  get<K extends Key<Shape>>(key: K): StateReads<Shape>[K];
  get<K extends Key<Shape>>(
    key: K,
    fallback: StateValues<Shape>[K]
  ): StateValues<Shape>[K];
  get(key: string, fallback?: unknown): unknown {
    if (key === "messages") {
      return this.#transcript.list(0, this.#transcript.count()).map(cloneJson);
    }
    this.#assertKey(key);
    const value = this.#current(key);
    return value === undefined ? fallback : value;
  }

  /**
   * Merges `value` through the key's handler (or `options.handler`),
   * validates and stores the result, and returns a copy of what was stored.
   * For `messages` it appends and returns the appended messages: returning
   * the whole transcript would make every append cost grow with the session.
   */
  set<K extends Key<Shape>>(
    key: K,
    value: unknown,
    options?: SetOptions<StateValues<Shape>[K]>
  ): StateValues<Shape>[K] {
    const next = this.prepare(key, value, options as SetOptions);
    this.put(key, next);
    // The backend stored its own copy. Prepared messages are fresh copies
    // no one else holds; a value may share parts with the key's default.
    return (
      key === "messages" ? next : cloneJson(next)
    ) as StateValues<Shape>[K];
  }

  /**
   * Computes and checks what `set` would store, without storing it; `put`
   * stores it. The tool executor prepares all of a call's merges first, so
   * they apply all or none. For `messages` the result is the list to append.
   */
  prepare(key: string, value: unknown, options: SetOptions = {}): JsonValue {
    if (key === "messages") {
      return prepareMessages(
        value,
        options.handler,
        this.#maxValueBytes
      ) as unknown as JsonValue;
    }
    this.#assertKey(key);
    const incomingProblem = jsonProblem(value, "value");
    if (incomingProblem) throw notJson(key, incomingProblem);
    const handler = options.handler ?? this.definition.handlerFor(key);
    let merged: unknown;
    try {
      // Both copies: a handler that mutates its arguments changes nothing.
      merged = handler(this.#current(key), cloneJson(value));
    } catch (error) {
      if (error instanceof RoostError) throw error;
      const refusal = new RoostError(
        "invalid_state_value",
        `${key}: its handler threw: ${error instanceof Error ? error.message : String(error)}`,
        { key, issues: [] }
      );
      // The author's own exception, with its stack, for whoever reports it
      // to them (a tool's outputsToState merge does); never on the wire.
      refusal.cause = error;
      throw refusal;
    }
    const next = this.definition.validate(key, merged);
    const bytes = utf8Length(JSON.stringify(next));
    if (bytes > this.#maxValueBytes) {
      throw tooLarge(key, bytes, this.#maxValueBytes);
    }
    return next;
  }

  /**
   * Appends messages their caller parsed and size-checked already (a
   * session's step, whose dispatch parsed its action); the transcript
   * keeps its own copy.
   */
  appendChecked(messages: Message[]): void {
    this.#transcript.append(messages);
  }

  /**
   * Stores a value from `prepare` (for `messages`: appends the list). Every
   * backend keeps its own copy of what it is given, so none is made here.
   */
  put(key: string, value: JsonValue): void {
    if (key === "messages") {
      if (!Array.isArray(value)) {
        throw new RoostError(
          "invalid_state_value",
          "messages: put takes the list prepare returned.",
          { key, issues: [] }
        );
      }
      this.appendChecked(value as unknown as Message[]);
      return;
    }
    this.#assertKey(key);
    this.#backend.set(key, value);
  }

  /** True when the key holds a value (`messages` always does); false for keys outside the schema. */
  has(key: string): boolean {
    if (key === "messages") return true;
    if (!this.definition.hasKey(key)) return false;
    return (
      this.#backend.has(key) || this.definition.initialValue(key) !== undefined
    );
  }

  toJSON(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const key of this.definition.keys()) {
      const value = this.#current(key);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }

  /** A copy of the stored value, else of the initial value, else undefined. */
  #current(key: string): JsonValue | undefined {
    const stored = this.#backend.get(key);
    return stored === undefined
      ? this.definition.initialValue(key)
      : cloneJson(stored);
  }

  #assertKey(key: string): void {
    if (!this.definition.hasKey(key)) {
      throw unknownKey(key, this.definition.keys());
    }
  }
}
