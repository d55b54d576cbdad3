/** @module `defineEnvironment()`: what sessions are created from (Aviary's environment). */

import * as z from "zod";
import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import { lazy } from "../lazy";
import type { AssistantMessage, ToolMessage } from "../messages/schema";
import { NAME_RE } from "../names";
import {
  defineEpisodeRubric,
  type EpisodeRubric,
  type EpisodeRubricOptions
} from "../rewards/episode";
import type {
  Component,
  EpisodeRewardArgs,
  Rubric,
  StepRewardArgs
} from "../rewards/types";
import { defineRubric, type WeightedSumOptions } from "../rewards/weighted-sum";
import {
  defineState,
  type ShapeOf,
  type StateDefinition
} from "../state/define-state";
import type { StateShape } from "../state/types";
import {
  type Tool,
  type ToolConfig,
  type ToolInput,
  tool
} from "../tools/define-tool";
import { type OpenAITool, openAITool } from "../tools/json-schema";
import { type ResolvedTree, resolveTree } from "../tree/define-tree";
import type { TreeConfig } from "../tree/types";
import { type AgentConfig, agentsField, checkAgents } from "./agents";
import type { Dataset } from "./dataset";
import type {
  EpisodeContext,
  Evaluation,
  ResetResult,
  StepContext,
  StepResult,
  ToolTypes
} from "./episode-context";
import type { McpOffer } from "./mcp-offer";
import {
  type RegisteredRubric,
  type RubricRegistry,
  resolveRubrics
} from "./rescore-rubrics";
import type { ValidationConfig } from "./validation";

export type {
  EpisodeContext,
  Evaluation,
  Observations,
  ResetResult,
  StepContext,
  StepResult,
  ToolTypes
} from "./episode-context";

/**
 * The tool names reset may choose. TypeScript settles them before it reads
 * a `tools` function when `reset` takes no argument, and finds none; then
 * any name type-checks and reset checks it when it runs.
 */
type NamesOf<ToolName extends string> = [ToolName] extends [never]
  ? string
  : ToolName;

export interface EnvironmentConfig<
  TaskSchema extends z.ZodType,
  Shape extends StateShape,
  Tools extends ToolTypes = ToolTypes
> {
  name: string;
  description: string;
  /**
   * Makes the environment multi-agent: its agents (roles) by name, each
   * with the tools it may call. Reset and step then give observations by
   * agent, the step its rewards by agent and whose turn is next, and each
   * step is one agent's (agents.ts); the state gains `agents`, where they
   * stand. Left out, the environment has one agent, as before.
   */
  agents?: Readonly<
    Record<string, AgentConfig<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>>
  >;
  /** Validates tasks given at creation or reset; omitted means no task. */
  task?: TaskSchema;
  /** Prompts, resources and resource templates for MCP clients (the MCP layer serves them). */
  mcp?: McpOffer;
  state?: StateDefinition<Shape>;
  /**
   * Tools by name; a tool's own `name`, if set, must equal its key. The
   * function form hands you a `tool` typed with this environment's state
   * and task, so `ctx.state.get("count")` is typed inside `run`.
   */
  tools:
    | (Tools &
        Record<
          string,
          Tool<ToolInput, NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
        >)
    | ((
        tool: TypedTool<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
      ) => Tools);
  /**
   * Starts an episode. Return `{ observations, tools: ["a", "b"] }` to offer
   * only those tools in it: the rest are refused like unknown tools until
   * the next reset, which chooses again.
   */
  reset(args: {
    task: z.output<NoInfer<TaskSchema>>;
    ctx: EpisodeContext<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>;
  }):
    | ResetResult<NamesOf<NoInfer<keyof Tools & string>>>
    | Promise<ResetResult<NamesOf<NoInfer<keyof Tools & string>>>>;
  /** Replaces the default step (execute tool calls, then evaluate). */
  step?(
    action: AssistantMessage,
    ctx: StepContext<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
  ): StepResult | Promise<StepResult>;
  /**
   * Scores the default step after its tool calls ran. Beside a `rubric`
   * its `done` still ends the episode and its reward is the component
   * `evaluate`, added to the rubric's.
   */
  evaluate?(args: {
    observations: ToolMessage[];
    ctx: EpisodeContext<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>;
  }): Evaluation | Promise<Evaluation>;
  /**
   * Scores every step (`defineRubric`): its weighted sum is added to the
   * step's reward and each component is answered in `reward_components`.
   * A custom `step`'s tool messages are scored too, its own reward being
   * the component `step`. The function form hands you `defineRubric`
   * typed with this environment's state and task, as `tools` does `tool`
   * (written inline, `defineRubric` cannot see them).
   */
  rubric?:
    | Rubric<StepRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>>
    | ((
        define: TypedDefine<
          StepRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>,
          WeightedSumOptions,
          Rubric<StepRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>>
        >
      ) => Rubric<
        StepRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
      >);
  /**
   * Scored once, on the step that ends the episode, over all its steps
   * (`defineEpisodeRubric`, or the function form handing it typed); added
   * to that step's reward.
   */
  episodeRubric?:
    | EpisodeRubric<
        EpisodeRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
      >
    | ((
        define: TypedDefine<
          EpisodeRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>,
          EpisodeRubricOptions,
          EpisodeRubric<
            EpisodeRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
          >
        >
      ) => EpisodeRubric<
        EpisodeRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
      >);
  /**
   * Rubrics the session's retained episodes may be scored with again
   * (`POST …/rescore`), by name, beside the own `rubric` and `episodeRubric`
   * (under those names). Declared, even `{}`, commits record what the log
   * lacks for it (task, hidden-store changes); left out, nothing is.
   */
  rubrics?: RubricRegistry<
    StepRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>,
    EpisodeRewardArgs<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>
  >;
  /**
   * Keep what forking at a past step of an episode needs (`POST …/fork`
   * with `step`): each commit records, beside the event log, the task and
   * the hidden store's changes (one more row a step, as rubrics for
   * re-scoring record). Left out, nothing is, and a fork copies the
   * session as it stands.
   */
  branchable?: boolean;
  /** A JSON snapshot for viewers (Aviary's export_frame). */
  frame?(ctx: EpisodeContext<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>): {
    state: JsonValue;
    info: JsonValue;
  };
  /**
   * Runs once when the session ends — deleted, or expired after its idle
   * TTL (Aviary's `close()`): release what the environment holds outside
   * the session. It reads the last committed episode; what it writes is
   * deleted with the session. Gets `closeTimeoutMs` (default 5 s); a throw
   * or a timeout is logged and the session is deleted anyway.
   */
  onClose?(args: {
    reason: "deleted" | "expired";
    ctx: EpisodeContext<NoInfer<Shape>, z.output<NoInfer<TaskSchema>>>;
  }): void | Promise<void>;
  closeTimeoutMs?: number;
  /** Steps after which the episode is truncated. */
  maxSteps?: number;
  /** The default split: what `task_index` picks from when no split is named. */
  dataset?: Dataset<z.input<NoInfer<TaskSchema>>>;
  /**
   * Named splits (Aviary's `make_dataset(split)`), e.g. `{ train, eval }`,
   * each `dataset(…)` or `generated(…)`; picked by `task_index` + `split`.
   */
  splits?: Record<string, Dataset<z.input<NoInfer<TaskSchema>>>>;
  /** An Elysia-style decision tree over these tools; checked when the environment is defined. */
  tree?: TreeConfig;
  /** The oracle `roost-edge validate` runs, or why there is none (validation.ts). */
  validation?: ValidationConfig<z.output<NoInfer<TaskSchema>>>;
  /** A return at or above it is a success in the server's task statistics; default `validation.maxReturn`, else 1. */
  successThreshold?: number;
  /**
   * `false` keeps this environment's episodes out of the server's task
   * statistics: sessions send no outcomes (saving one Durable Object
   * request per ended episode), and the statistics routes answer 404.
   */
  taskStats?: boolean;
}

/** `defineRubric()` or `defineEpisodeRubric()` with the state and task of one environment fixed. */
export type TypedDefine<Args, Options, Out> = (
  components: Record<string, Component<Args>>,
  options?: Options
) => Out;

/** `tool()` with the state and task of one environment fixed. */
export type TypedTool<Shape extends StateShape, Task> = <
  Input extends ToolInput
>(
  config: ToolConfig<Input, Shape, Task>
) => Tool<Input, Shape, Task>;

/**
 * A registered environment as the runtime uses it. It extends the config
 * without `Tools`: reset's tool names would make `Tools` invariant, and an
 * environment must fit `Environment` whatever its tools.
 */
export interface Environment<
  TaskSchema extends z.ZodType = z.ZodType,
  Shape extends StateShape = StateShape,
  Tools extends ToolTypes = ToolTypes
> extends Omit<
    EnvironmentConfig<TaskSchema, Shape>,
    "tools" | "state" | "task" | "tree" | "rubric" | "episodeRubric" | "rubrics"
  > {
  readonly kind: "environment";
  readonly task: z.ZodType;
  readonly state: StateDefinition<Shape>;
  readonly tools: ReadonlyMap<string, Tool>;
  /** The model's view of the tools, in OpenAI's format. */
  readonly toolSchemas: readonly OpenAITool[];
  readonly tree?: ResolvedTree;
  /** The rubrics, resolved; `never` as the runtime calls them whatever the state. */
  readonly rubric?: Rubric<never>;
  readonly episodeRubric?: EpisodeRubric<never>;
  /** What re-scoring may apply, own rubrics included; undefined when none is registered. */
  readonly rubrics?: ReadonlyMap<string, RegisteredRubric>;
  /**
   * Never set: carries each tool's declared input in the type, so a client
   * typed from the definition (`useSession<typeof env>`) knows tool names
   * and arguments.
   */
  readonly toolTypes?: Tools;
}

/** Without a task schema a session takes no task (or an empty object). */
const NO_TASK = lazy(() => z.object({}).strict().optional());

/**
 * Defines an environment. State, task and tool types flow into `reset`,
 * `step`, `evaluate` and every tool's context.
 *
 * @example
 * export const counter = defineEnvironment({
 *   name: "counter",
 *   description: "Count to 10.",
 *   state: defineState({ count: { type: z.number().default(0) } }),
 *   tools: { incr },
 *   reset: ({ ctx }) => `Count to 10. counter=${ctx.state.get("count")}`
 * });
 */
export const defineEnvironment = <
  TaskSchema extends z.ZodType = ReturnType<typeof NO_TASK>,
  Shape extends StateShape = Record<never, never>,
  Tools extends ToolTypes = ToolTypes
>(
  config: EnvironmentConfig<TaskSchema, Shape, Tools>
): Environment<TaskSchema, Shape, Tools> => {
  if (!NAME_RE.test(config.name)) {
    throw new RoostError(
      "invalid_name",
      `Environment name "${config.name}" must match ${NAME_RE}.`
    );
  }
  const tools = new Map<string, Tool>();
  // Every declared value is a tool: `Tools` only keeps their inputs' types.
  const declared = (typeof config.tools === "function"
    ? config.tools(tool as TypedTool<Shape, z.output<TaskSchema>>)
    : config.tools) as unknown as Record<string, Tool>;
  for (const [key, t] of Object.entries(declared)) {
    if (!NAME_RE.test(key)) {
      throw new RoostError(
        "invalid_name",
        `Tool name "${key}" in ${config.name} must match ${NAME_RE}.`
      );
    }
    if (t.name !== undefined && t.name !== key) {
      throw new RoostError(
        "invalid_request",
        `Tool registered as "${key}" in ${config.name} is named "${t.name}"; use one name.`
      );
    }
    tools.set(key, { ...(t as unknown as Tool), name: key });
  }
  if (
    config.maxSteps !== undefined &&
    !(Number.isSafeInteger(config.maxSteps) && config.maxSteps > 0)
  ) {
    throw new RoostError(
      "invalid_request",
      `maxSteps of ${config.name} must be a whole number ≥ 1.`
    );
  }
  for (const split of Object.keys(config.splits ?? {})) {
    if (!NAME_RE.test(split)) {
      throw new RoostError(
        "invalid_name",
        `Split name "${split}" in ${config.name} must match ${NAME_RE}.`
      );
    }
  }
  const tree =
    config.tree === undefined ? undefined : resolveTree(config.tree, tools);
  let state =
    config.state ?? (defineState({}) as unknown as StateDefinition<Shape>);
  if (config.agents !== undefined) {
    checkAgents(config, tools, state.keys());
    const shape: ShapeOf<Record<string, z.ZodType>> = {
      ...state.shape,
      agents: agentsField()
    };
    state = defineState(shape) as unknown as StateDefinition<Shape>;
  }
  // Deriving JSON Schemas from zod is most of what defining costs; a cold
  // isolate defines every environment before its first request.
  const toolSchemas = lazy(() =>
    [...tools].map(([name, t]) =>
      openAITool(
        name,
        t.description,
        t.input,
        Object.values(t.inputsFromState ?? {}).filter(
          (p): p is string => typeof p === "string"
        )
      )
    )
  );
  const {
    rubric: stepForm,
    episodeRubric: episodeForm,
    rubrics: registered,
    ...rest
  } = config;
  const rubric =
    typeof stepForm === "function" ? stepForm(defineRubric as never) : stepForm;
  const episodeRubric =
    typeof episodeForm === "function"
      ? episodeForm(defineEpisodeRubric as never)
      : episodeForm;
  // As the runtime calls them: whatever the state, hence `never`.
  const own = { rubric, episodeRubric } as Record<string, RegisteredRubric>;
  const rubrics = resolveRubrics(config.name, own, registered as never);
  return {
    ...rest,
    ...(rubrics === undefined ? {} : { rubrics }),
    ...(rubric === undefined ? {} : { rubric }),
    ...(episodeRubric === undefined ? {} : { episodeRubric }),
    kind: "environment",
    task: config.task ?? NO_TASK(),
    state,
    tools,
    get toolSchemas() {
      return toolSchemas();
    },
    tree
  };
};
