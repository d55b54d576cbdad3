/** @module The environment the benchmarks step: one trivial tool and one that stores an object; and its branchable twin. */

import * as z from "zod";
import {
  defineEnvironment,
  result,
  scriptedModel,
  toolCalls
} from "../../src/index";
import { benchObject } from "../lib/objects";

/** The bench environment under `name`, with what sets a variant apart. */
const benchEnvironment = (
  name: string,
  variant: {
    branchable?: boolean;
    maxSteps?: number;
    tree?: boolean;
    agents?: "turns" | "played";
  }
) =>
  defineEnvironment({
    name,
    description:
      "Benchmark fixture: a no-op tool and a tool that stores one object.",
    ...(variant.branchable ? { branchable: true } : {}),
    ...(variant.maxSteps === undefined ? {} : { maxSteps: variant.maxSteps }),
    // Scenario 11: two agents taking turns, or one against an agent the
    // environment plays, which takes its turn inside each of the other's steps.
    ...(variant.agents === undefined
      ? {}
      : {
          agents: {
            a: { tools: ["noop"] },
            b: {
              tools: ["noop"],
              ...(variant.agents === "played"
                ? { play: () => toolCalls({ name: "noop", id: "b" }) }
                : {})
            }
          }
        }),
    tools: (tool) => ({
      noop: tool({
        description: "Does nothing and answers ok.",
        input: z.object({}),
        run: () => "ok"
      }),
      put: tool({
        description: "Stores object n (about 250 bytes) under put/items.",
        input: z.object({ n: z.number().int().nonnegative() }),
        run: async function* ({ n }) {
          yield result({ name: "items", objects: [benchObject(n)] });
          return "stored";
        }
      })
    }),
    // Scenario 6: three passes that each store an object, then an answer.
    ...(variant.tree
      ? {
          tree: {
            tools: ["put"],
            model: scriptedModel(
              [1, 2, 3].map((n) => ({ tool: "put", inputs: { n } })),
              { final: "stored three" }
            )
          }
        }
      : {}),
    reset: () => "Benchmark session."
  });

export const bench = benchEnvironment("bench", { tree: true });

/** Scenarios 11 and 18: what branchable history costs a step, and forks at a past step. */
export const benchBranchable = benchEnvironment("bench-branchable", {
  branchable: true,
  maxSteps: 100_000
});

/** Scenario 11: a step of one of two agents, and of one against a played agent. */
export const benchAgents = benchEnvironment("bench-agents", {
  agents: "turns"
});
export const benchPlayed = benchEnvironment("bench-played", {
  agents: "played"
});
