/** @module `GET /v1/environments`: the environments sessions can be created from. */

import * as z from "zod";
import { lazy } from "../lazy";
import { JsonObjectSchema } from "./json-value";
import { NameSchema } from "./limits";
import { OpenAIToolSchema } from "./openai-tool";

export const TreeToolInfoSchema = lazy(() =>
  z
    .object({
      name: NameSchema(),
      description: z.string(),
      /** Whether choosing it with `end` may end the run. */
      end: z.boolean(),
      /** The node the pass continues at after this tool ran, when it has follow-ups. */
      follow_up_node: z.string().optional()
    })
    .meta({
      id: "TreeToolInfo",
      description: "A tool offered at a node of a decision tree."
    })
);
export type TreeToolInfo = z.infer<ReturnType<typeof TreeToolInfoSchema>>;

export const TreeNodeInfoSchema = lazy(() =>
  z
    .object({
      /** `root`, a branch id, or `<node>.<tool>` for the follow-ups of a tool. */
      id: z.string(),
      kind: z.enum(["root", "branch", "follow_ups"]),
      /** Shown at the parent to choose this branch; empty for the root and follow-up nodes. */
      description: z.string(),
      /** Shown at this node: how to choose among its options. */
      instruction: z.string(),
      tools: z.array(TreeToolInfoSchema()),
      /** Ids of the sub-branches offered here. */
      branches: z.array(z.string()),
      /** For a follow-up node: the node and tool it follows. */
      after: z.object({ node: z.string(), tool: NameSchema() }).optional()
    })
    .meta({
      id: "TreeNodeInfo",
      description:
        "A node of a decision tree: the root, a branch, or the follow-ups of a tool."
    })
);
export type TreeNodeInfo = z.infer<ReturnType<typeof TreeNodeInfoSchema>>;

export const TreeInfoSchema = lazy(() =>
  z
    .object({
      /** Every node, the root first, then depth first in the order they are offered. */
      nodes: z.array(TreeNodeInfoSchema()),
      /** Whether the root offers the built-in `text_response`. */
      text_response: z.boolean(),
      /** Passes decided freely before a forced final answer. */
      recursion_limit: z.number().int().positive()
    })
    .meta({
      id: "TreeInfo",
      description:
        "An environment's decision tree as data, for a frontend to draw; runs stream the node they are at as tree.node events."
    })
);
export type TreeInfo = z.infer<ReturnType<typeof TreeInfoSchema>>;

/** One named split: its size, or that it is generated (any index is a seed). */
export const SplitInfoSchema = lazy(() =>
  z
    .object({
      name: NameSchema(),
      /** Tasks in the split; absent when it is generated. */
      size: z.number().int().nonnegative().optional(),
      /** True when the split has no size: every task_index ≥ 0 is a seed. */
      generated: z.boolean()
    })
    .meta({ id: "SplitInfo", description: "A named dataset split." })
);
export type SplitInfo = z.infer<ReturnType<typeof SplitInfoSchema>>;

/**
 * A decision model a run may name. `environment` is the tree's own model
 * (`tree.model`, often a scripted one), which answers only when no model
 * is configured or a run names it.
 */
export const ModelInfoSchema = lazy(() =>
  z
    .object({
      name: z.string(),
      source: z.enum(["configured", "environment"])
    })
    .meta({
      id: "ModelInfo",
      description:
        "A decision model a run may name: configured on this deployment, or the environment's own."
    })
);
export type ModelInfo = z.infer<ReturnType<typeof ModelInfoSchema>>;

/**
 * What `roost-edge validate --url` needs of an environment it has no code
 * of: whether its module defines an oracle (which only the module can
 * run), or the reason it has none.
 */
export const ValidationInfoSchema = lazy(() =>
  z
    .object({
      /** True when the environment defines `validation.oracle`. */
      oracle: z.boolean(),
      /** Its `validation.noOracle`: why it has no oracle. */
      no_oracle: z.string().optional(),
      /** The most an episode can return (`validation.maxReturn`, default 1). */
      max_return: z.number(),
      /** Steps a validator's episode may take when the environment sets no max_steps. */
      max_steps: z.number().int().positive().optional()
    })
    .meta({
      id: "ValidationInfo",
      description:
        "How roost-edge validate judges the environment's rewards: an oracle in its module, or why there is none."
    })
);
export type ValidationInfo = z.infer<ReturnType<typeof ValidationInfoSchema>>;

export const AgentInfoSchema = lazy(() =>
  z
    .object({
      name: NameSchema(),
      description: z.string().optional(),
      /** The tools it may call. */
      tools: z.array(NameSchema()),
      /** The environment plays it itself: no client acts for it. */
      played: z.boolean()
    })
    .meta({
      id: "AgentInfo",
      description: "One agent (role) of a multi-agent environment."
    })
);

export const EnvironmentInfoSchema = lazy(() =>
  z
    .object({
      name: NameSchema(),
      description: z.string(),
      /** JSON Schema of the task. */
      task_schema: JsonObjectSchema(),
      /** JSON Schema of the typed state. */
      state_schema: JsonObjectSchema(),
      tools: z.array(OpenAIToolSchema()),
      /** Size of the default dataset (task_index without a split). */
      dataset_size: z.number().int().nonnegative().optional(),
      /** True when the default dataset is generated (it has no size). */
      dataset_generated: z.boolean().optional(),
      /** Named splits, picked by task_index + split. */
      splits: z.array(SplitInfoSchema()).optional(),
      max_steps: z.number().int().positive().optional(),
      /**
       * The rubrics POST …/rescore may apply, by name (`rubric` and
       * `episodeRubric` are the environment's own); absent when it
       * registers none.
       */
      rubrics: z.array(NameSchema()).optional(),
      /** The decision tree, for an environment that has one. */
      tree: TreeInfoSchema().optional(),
      /**
       * With a tree: the models its runs may name on this deployment, the
       * one a run that names none gets first. Empty when none is; absent
       * when the deployment's model settings could not be read.
       */
      models: z.array(ModelInfoSchema()).optional(),
      /**
       * Present when the environment has rubrics: which of the components
       * its steps report (`reward_components`) are metrics, weight 0,
       * reported and never added to the reward.
       */
      reward_metrics: z.array(z.string()).optional(),
      /** A multi-agent environment's agents (roles), in its order. */
      agents: z.array(AgentInfoSchema()).optional(),
      /** What `roost-edge validate --url` reads of the environment's validation config. */
      validation: ValidationInfoSchema().optional()
    })
    .meta({ id: "EnvironmentInfo", description: "A registered environment." })
);
export type EnvironmentInfo = z.infer<ReturnType<typeof EnvironmentInfoSchema>>;
export type AgentInfo = z.infer<ReturnType<typeof AgentInfoSchema>>;

export const EnvironmentsResponseSchema = lazy(() =>
  z.object({ environments: z.array(EnvironmentInfoSchema()) }).meta({
    id: "EnvironmentsResponse",
    description: "Every registered environment."
  })
);
export type EnvironmentsResponse = z.infer<
  ReturnType<typeof EnvironmentsResponseSchema>
>;

export const EnvironmentParamsSchema = lazy(() =>
  z.object({ name: NameSchema() })
);
export type EnvironmentParams = z.infer<
  ReturnType<typeof EnvironmentParamsSchema>
>;
