/** @module Type-level checks of defineState and State inference (checked by tsc, never run). */

import * as z from "zod";
import type { Message } from "../src/messages/schema";
import {
  defineState,
  MemoryStateBackend,
  MemoryTranscriptBackend,
  State
} from "../src/state";

/** Accepts exactly `T`: an argument of a wider or narrower type fails to compile. */
const expectType = <T>(_value: T): void => undefined;
type Equal<A, B> =
  (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2
    ? true
    : false;
const assertTrue = <_T extends true>(): void => undefined;

const definition = defineState({
  count: { type: z.number().default(0) },
  names: { type: z.array(z.string()) },
  tags: { type: z.array(z.string()).default([]) },
  maybe: { type: z.string().optional() },
  nullable: { type: z.string().nullable().default(null) }
});
const state = new State(
  definition,
  new MemoryStateBackend(),
  new MemoryTranscriptBackend()
);

// A key with a default always holds a value (zod fills it when nothing is stored).
const count = state.get("count");
assertTrue<Equal<typeof count, number>>();
const countOr = state.get("count", 0);
assertTrue<Equal<typeof countOr, number>>();
const names = state.get("names");
assertTrue<Equal<typeof names, string[] | undefined>>();
const tags = state.get("tags");
assertTrue<Equal<typeof tags, string[]>>();
const maybe = state.get("maybe");
assertTrue<Equal<typeof maybe, string | undefined>>();
const nullable = state.get("nullable");
assertTrue<Equal<typeof nullable, string | null>>();
const messages = state.get("messages");
assertTrue<Equal<typeof messages, Message[]>>();
expectType<number>(state.set("count", 1));

// @ts-expect-error a key outside the schema
state.get("nope");
// @ts-expect-error a key outside the schema
state.set("nope", 1);
// @ts-expect-error the fallback must have the key's type
state.get("count", "zero");

// A handler is typed by its key's zod type.
defineState({
  numbers: {
    type: z.array(z.number()),
    handler: (current, incoming) => {
      assertTrue<Equal<typeof current, number[] | undefined>>();
      return [...(current ?? []), Number(incoming)];
    }
  }
});
defineState({
  numbers: {
    type: z.array(z.number()),
    // @ts-expect-error a handler must return the key's type
    handler: () => "not a list"
  }
});
