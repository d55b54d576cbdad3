/** @module Type-level tests of tools and environments, checked by tsc (never run). */

import * as z from "zod";
import { defineEnvironment, defineState, tool } from "../src/index";

const expectType = <T>(_value: T): void => {};

// run's arguments are inferred from the zod input.
tool({
  description: "Search.",
  input: z.object({ q: z.string(), limit: z.number().default(5) }),
  run: ({ q, limit }) => {
    expectType<string>(q);
    expectType<number>(limit);
    return q.length + limit;
  }
});

tool({
  description: "Reads a parameter it does not declare.",
  input: z.object({ q: z.string() }),
  // @ts-expect-error nope is not a parameter
  run: ({ nope }) => nope
});

tool({
  description: "Bad use of an argument.",
  input: z.object({ q: z.string() }),
  run: ({ q }) => {
    // @ts-expect-error q is a string, not a number
    const n: number = q;
    return n;
  }
});

// Inside an environment, the context is typed from its state and task.
defineEnvironment({
  name: "typed",
  description: "Typed context.",
  task: z.object({ target: z.number() }),
  state: defineState({
    count: { type: z.number().default(0) },
    names: { type: z.array(z.string()).default([]) }
  }),
  tools: (t) => ({
    incr: t({
      description: "Increment.",
      input: z.object({ by: z.number() }),
      inputsFromState: { count: "by" },
      run: ({ by }, ctx) => {
        // A key with a default reads as its type: no `?? 0` needed.
        const count: number = ctx.state.get("count");
        expectType<number>(count + 1);
        expectType<number>(ctx.state.get("count", 0));
        expectType<string[]>(ctx.state.get("names", []));
        expectType<number>(ctx.task.target);
        // @ts-expect-error not a state key
        ctx.state.get("nope");
        // @ts-expect-error the task has no such field
        ctx.task.missing;
        return by;
      }
    }),
    bad: t({
      description: "Maps state to a parameter it does not have.",
      input: z.object({ a: z.string() }),
      // @ts-expect-error b is not a parameter of this tool
      inputsFromState: { count: "b" },
      run: () => "x"
    })
  }),
  reset: ({ task, ctx }) => {
    expectType<number>(task.target);
    const count: number = ctx.state.get("count");
    return `go from ${count}`;
  }
});

// Reset may choose the episode's tools, by the environment's own tool names.
const saw = tool({ description: "Saw.", input: z.object({}), run: () => "" });
const drill = tool({
  description: "Drill.",
  input: z.object({}),
  run: () => ""
});
defineEnvironment({
  name: "bench_a",
  description: "Tools per reset.",
  tools: { saw, drill },
  reset: () => ({ observations: "Saw only.", tools: ["saw"] })
});
defineEnvironment({
  name: "bench_b",
  description: "Tools per reset, in the function form.",
  tools: (t) => ({
    saw: t({ description: "Saw.", input: z.object({}), run: () => "" })
  }),
  reset: () => ({ observations: "Saw only.", tools: ["saw"] })
});
defineEnvironment({
  name: "bench_c",
  description: "A name that is not a tool of the environment.",
  tools: { saw, drill },
  // @ts-expect-error hammer is not one of this environment's tools
  reset: () => ({ observations: "No.", tools: ["hammer"] })
});
defineEnvironment({
  name: "bench_d",
  description:
    "The function form checks the names once reset reads its argument.",
  tools: (t) => ({
    saw: t({ description: "Saw.", input: z.object({}), run: () => "" })
  }),
  // @ts-expect-error hammer is not one of this environment's tools
  reset: ({ task: _task }) => ({ observations: "No.", tools: ["hammer"] })
});
