/** @module Type-level tests of `useSession` typed from an environment, checked by tsc (never run). */

import * as z from "zod";
import type { counter } from "../examples/counter/index";
import { defineEnvironment, defineState, tool } from "../src/index";
import type { JsonValue } from "../src/json";
import { useSession } from "../src/react/index";

const expectType = <T>(_value: T): void => {};
const options = {
  baseUrl: "http://127.0.0.1:8787",
  sessionId: "s",
  token: "t"
};

export const Counter = () => {
  const session = useSession<typeof counter>(options);
  // State keys and their types come from the definition; absent until written.
  expectType<number | undefined>(session.state?.count);
  // @ts-expect-error not a state key
  session.state?.nope;
  // @ts-expect-error count is a number
  expectType<string | undefined>(session.state?.count);
  void session.call("incr", {});
  // @ts-expect-error not a tool of the counter
  void session.call("reset_all", {});
  return null;
};

const search = defineEnvironment({
  name: "search",
  description: "Searches.",
  state: defineState({ hits: { type: z.array(z.string()).default([]) } }),
  tools: {
    find: tool({
      description: "Find.",
      input: z.object({ q: z.string(), limit: z.number().default(5) }),
      run: ({ q }) => q
    })
  },
  reset: () => "Search."
});

export const Search = () => {
  const session = useSession<typeof search>(options);
  expectType<string[] | undefined>(session.state?.hits);
  // Arguments as the tool's input takes them: defaults may be left out.
  void session.call("find", { q: "shoes" });
  void session.call("find", { q: "shoes", limit: 2 });
  // @ts-expect-error q is required
  void session.call("find", { limit: 2 });
  // @ts-expect-error q is a string
  void session.call("find", { q: 1 });
  return null;
};

export const Untyped = () => {
  // Without an environment: any tool, JSON arguments, JSON state values.
  const session = useSession(options);
  expectType<JsonValue | undefined>(session.state?.anything);
  void session.call("whatever", { a: 1 });
  return null;
};
