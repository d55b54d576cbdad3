/** @module `tool()`: a typed tool definition from a zod input schema and a run function. */

import type * as z from "zod";
import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import { NAME_RE } from "../names";
import type { StateShape, StateValues } from "../state/types";
import type { TreeData } from "../tree/types";
import type { ClientRequest } from "./ask";
import type { OutputToState, ToolContext, ToolRun } from "./types";

/** The zod type every tool input must be: an object of named parameters. */
export type ToolInput = z.ZodObject;

export interface ToolConfig<
  Input extends ToolInput,
  Shape extends StateShape,
  Task
> {
  /** Defaults to the key the tool is registered under in `defineEnvironment({ tools })`. */
  name?: string;
  description: string;
  input: Input;
  run: ToolRun<z.output<Input>, Shape, Task>;
  /** `{ stateKey: paramName }`: fills a parameter the model left out, and hides it from the model's schema. */
  inputsFromState?: {
    [K in keyof StateValues<Shape> & string]?: keyof z.input<Input> & string;
  };
  /** `{ stateKey: { source?, handler? } }`: merges (a field of) an object result into state after a successful call. */
  outputsToState?: { [K in keyof Shape & string]?: OutputToState };
  /** Limit on the call's async waits, in ms; default is the runtime's (30 s). */
  timeoutMs?: number;
  /** False makes the tool run alone: it waits for running calls and blocks new ones. */
  concurrencySafe?: boolean;
  /**
   * How an MCP client that runs calls as tasks gets this one: `required`
   * (always a task; a client that cannot is refused), `optional` (a task
   * at once), `forbidden` (never). Unset, the call is answered plainly when
   * it ends within two seconds, as a task otherwise.
   */
  taskSupport?: "forbidden" | "optional" | "required";
  /**
   * What the call needs its MCP client to answer before it starts
   * (`{ name: request }`, as `ctx.client.ask` takes): a stateless client
   * answers them before a task is made for the call. `run` reads the
   * answers with `ctx.client.ask` under the same names.
   */
  asksFirst?: (args: JsonObject) => Record<string, ClientRequest>;
  /** Decision trees: the tool may end the run. */
  end?: boolean;
  /** Decision trees: whether the model may pick this tool now; a string (or false) says why not. */
  available?: (
    treeData: TreeData
  ) => boolean | string | Promise<boolean | string>;
  /** Decision trees: run automatically before deciding when this returns true or `{ inputs }`. */
  runIf?: (
    treeData: TreeData
  ) =>
    | boolean
    | { inputs: JsonObject }
    | Promise<boolean | { inputs: JsonObject }>;
}

/** A tool as the runtime holds it. `run` is a method so tools of any input fit one registry type. */
export interface Tool<
  Input extends ToolInput = ToolInput,
  Shape extends StateShape = StateShape,
  Task = unknown
> extends Omit<ToolConfig<Input, Shape, Task>, "run"> {
  readonly kind: "tool";
  run(
    args: z.output<Input>,
    ctx: ToolContext<Shape, Task>
  ): ReturnType<ToolRun<z.output<Input>, Shape, Task>>;
}

/**
 * Defines a tool. The arguments of `run` are inferred from `input`; inside
 * `defineEnvironment` the context's state and task are typed from it too.
 *
 * @example
 * const incr = tool({
 *   description: "Increment the counter.",
 *   input: z.object({}),
 *   run: (_args, ctx) => `counter=${ctx.state.set("count", (ctx.state.get("count") ?? 0) + 1)}`
 * });
 */
export const tool = <
  Input extends ToolInput,
  Shape extends StateShape = StateShape,
  Task = unknown
>(
  config: ToolConfig<Input, Shape, Task>
): Tool<Input, Shape, Task> => {
  if (config.name !== undefined && !NAME_RE.test(config.name)) {
    throw new RoostError(
      "invalid_name",
      `Tool name "${config.name}" must match ${NAME_RE} (OpenAI's function-name rule).`
    );
  }
  const params = Object.keys(config.input.shape);
  for (const [stateKey, param] of Object.entries(
    config.inputsFromState ?? {}
  )) {
    if (typeof param !== "string" || !params.includes(param)) {
      throw new RoostError(
        "invalid_request",
        `inputsFromState maps "${stateKey}" to unknown parameter "${String(param)}". Parameters: ${params.join(", ") || "(none)"}.`
      );
    }
  }
  return { ...config, kind: "tool" } as Tool<Input, Shape, Task>;
};
