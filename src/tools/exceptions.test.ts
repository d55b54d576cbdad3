// What a tool's own code threw reaches its author (CallOutcome.exception,
// the onFinish hook) and never the model; a refusal of the model's call and
// a timeout are no exceptions of the author's code.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createEpisodeControl } from "../environment/episode-control";
import type { ToolCall } from "../messages/schema";
import { defineState } from "../state/define-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { error, status } from "../store/result";
import { type Tool, tool } from "./define-tool";
import { executeToolCalls } from "./execute";
import type { MergeableState } from "./outputs";
import type { ToolException } from "./types";

function parseGauge(raw: string): number {
  throw new TypeError(`gauge reading "${raw}" is not a number`);
}

const tools = {
  gauge: tool({
    description: "Reads a gauge through a helper that throws.",
    input: z.object({ raw: z.string() }),
    run: ({ raw }) => parseGauge(raw)
  }),
  stream: tool({
    description: "Throws from a generator.",
    input: z.object({}),
    run: async function* () {
      yield status("working");
      throw new RangeError("stream broke");
    }
  }),
  word: tool({
    description: "Throws a string, not an Error.",
    input: z.object({}),
    run: () => {
      throw "plain words";
    }
  }),
  slow: tool({
    description: "Never answers in time.",
    input: z.object({}),
    timeoutMs: 5,
    run: () => new Promise(() => {})
  }),
  healing: tool({
    description: "Fails the self-healing way: advice for the model.",
    input: z.object({}),
    run: async function* () {
      yield error({ feedback: "Pass a positive number." });
    }
  }),
  merge: tool({
    description: "Its result goes through a handler that throws.",
    input: z.object({}),
    outputsToState: {
      count: {
        source: "n",
        handler: function addToCount() {
          throw new Error("handler blew up");
        }
      }
    },
    run: () => ({ n: 1 })
  }),
  small: tool({
    description: "Its result is refused by the state's schema.",
    input: z.object({}),
    outputsToState: { small: { source: "n" } },
    run: () => ({ n: 50 })
  })
} as unknown as Record<string, Tool>;

const scope = () => {
  const { control } = createEpisodeControl();
  return {
    tools: new Map(
      Object.entries(tools).map(([k, t]) => [k, { ...t, name: k }])
    ),
    environment: createEnvironmentStore(new MemoryStoreBackend()),
    hidden: new MemoryHiddenStore(),
    state: new State(
      defineState({
        count: { type: z.number().default(0) },
        small: { type: z.number().max(10).optional() }
      }),
      new MemoryStateBackend(),
      new MemoryTranscriptBackend()
    ) as unknown as MergeableState,
    task: {},
    episode: control
  };
};

let n = 0;
const call = (name: string, args: object = {}): ToolCall => ({
  id: `c${++n}`,
  type: "function",
  function: { name, arguments: JSON.stringify(args) }
});

describe("tool exceptions", () => {
  it("keeps a thrown Error's stack for the author, with the throwing function, and the model reads the message only", async () => {
    const finished: (ToolException | undefined)[] = [];
    const [out] = await executeToolCalls(
      [call("gauge", { raw: "x" })],
      scope(),
      {
        hooks: { onFinish: (_c, _m, exception) => finished.push(exception) }
      }
    );
    expect(out!.message.content).toBe(
      'Tool gauge failed: gauge reading "x" is not a number'
    );
    expect(out!.exception?.message).toBe('gauge reading "x" is not a number');
    expect(out!.exception?.stack).toMatch(/^TypeError: gauge reading/);
    expect(out!.exception?.stack).toContain("parseGauge");
    expect(out!.exception?.stack).toContain("exceptions.test.ts");
    expect(finished).toEqual([out!.exception]);
  });

  it("reports a generator's throw with its stack, and a thrown string without one", async () => {
    const [stream, word] = await executeToolCalls(
      [call("stream"), call("word")],
      scope()
    );
    expect(stream!.exception?.stack).toMatch(/^RangeError: stream broke/);
    expect(word!.exception).toEqual({ message: "plain words" });
    expect(word!.message.content).toBe("Tool word failed: plain words");
  });

  it("reports an outputsToState handler's throw, but not a value the state refused", async () => {
    const [merge, small] = await executeToolCalls(
      [call("merge"), call("small")],
      scope()
    );
    expect(merge!.message.is_error).toBe(true);
    expect(merge!.message.content).toContain("handler blew up");
    expect(merge!.exception?.stack).toContain("addToCount");
    expect(small!.message.is_error).toBe(true);
    expect(small!.exception).toBeUndefined();
  });

  it("reports no exception for an unknown tool, bad arguments, a timeout or a self-healing error", async () => {
    const finished: (ToolException | undefined)[] = [];
    const out = await executeToolCalls(
      [call("nope"), call("gauge", { raw: 5 }), call("slow"), call("healing")],
      scope(),
      { hooks: { onFinish: (_c, _m, exception) => finished.push(exception) } }
    );
    expect(out.map((o) => o.message.is_error)).toEqual([
      true,
      true,
      true,
      true
    ]);
    expect(out.map((o) => o.exception)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined
    ]);
    expect(finished).toEqual([undefined, undefined, undefined, undefined]);
  });
});
