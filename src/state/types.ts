/** @module Types of typed state (Haystack's State) and its storage backends. */

import type * as z from "zod";
import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";

/**
 * How an incoming value merges with the current one. Declared through a
 * method so its parameters are bivariant: a handler written for one key's
 * type (say `number[]`) still fits where keys are not known (`StateShape`).
 */
export type Handler<T = unknown> = {
  bivarianceHack(current: T | undefined, incoming: unknown): T;
}["bivarianceHack"];

/** One key of a state schema. */
export interface StateField<S extends z.ZodType = z.ZodType> {
  type: S;
  /** Defaults to `mergeLists` for array types and `replaceValues` for the rest. */
  handler?: Handler<z.output<S>>;
}

export type StateShape = Record<string, StateField>;

/** The values of a state shape, plus the transcript under `messages`. */
export type StateValues<Shape extends StateShape> = {
  [K in keyof Shape]: z.output<Shape[K]["type"]>;
} & { messages: Message[] };

/**
 * What `get` returns for one key. When nothing is stored, a key reads as
 * what zod makes of undefined: a schema whose input type admits it
 * (`.default()`, `.optional()`) reads as its own output type; one that rejects
 * it reads as undefined until written.
 */
export type ReadOf<F extends StateField> =
  undefined extends z.input<F["type"]>
    ? z.output<F["type"]>
    : z.output<F["type"]> | undefined;

/** What `get(key)` returns, per key; `messages` is always a list. */
export type StateReads<Shape extends StateShape> = {
  [K in keyof Shape]: ReadOf<Shape[K]>;
} & { messages: Message[] };

/** Where state values live. Values in and out are JSON; the State class copies. */
export interface StateBackend {
  get(key: string): JsonValue | undefined;
  set(key: string, value: JsonValue): void;
  has(key: string): boolean;
  keys(): string[];
}

/** The append-only transcript behind the virtual `messages` key. */
export interface TranscriptBackend {
  append(messages: Message[]): void;
  count(): number;
  list(offset: number, limit: number): Message[];
}

export interface SetOptions<T = unknown> {
  /** Overrides the key's handler for this one call. */
  handler?: Handler<T>;
}

/**
 * Typed state as tools and sessions see it. `get` returns copies; `set`
 * merges through the key's handler, validates the merged value with the
 * key's zod type and stores it — or throws a RoostError and changes nothing.
 */
export interface StateAccess<Shape extends StateShape = StateShape> {
  /** A key with a zod default reads as its type; others may be undefined. */
  get<K extends keyof StateValues<Shape> & string>(
    key: K
  ): StateReads<Shape>[K];
  get<K extends keyof StateValues<Shape> & string>(
    key: K,
    fallback: StateValues<Shape>[K]
  ): StateValues<Shape>[K];
  set<K extends keyof StateValues<Shape> & string>(
    key: K,
    value: unknown,
    options?: SetOptions<StateValues<Shape>[K]>
  ): StateValues<Shape>[K];
  has(key: string): boolean;
  /** Every key but `messages`, as JSON. */
  toJSON(): Record<string, JsonValue>;
}
