/** @module The environments a runtime serves, by name. */

import * as z from "zod";
import { RoostError } from "../errors";
import type { JsonObject } from "../json";
import { lazy } from "../lazy";
import type { TreeInfo } from "../protocol/http-environments";
import { metricsOf } from "../rewards/component";
import type { Environment } from "./define-environment";
import { describeTree } from "./describe-tree";

/** What `GET /v1/environments` lists for each environment. */
export interface EnvironmentInfo {
  name: string;
  description: string;
  task_schema: JsonObject;
  state_schema: JsonObject;
  tools: Environment["toolSchemas"];
  dataset_size?: number;
  dataset_generated?: boolean;
  splits?: { name: string; size?: number; generated: boolean }[];
  max_steps?: number;
  /** The rubrics re-scoring may apply, by name. */
  rubrics?: string[];
  /** The decision tree as data, for an environment that has one. */
  tree?: TreeInfo;
  /** With rubrics: the reward components that are metrics (weight 0), by flat name. */
  reward_metrics?: string[];
  /** A multi-agent environment's agents, in its order. */
  agents?: AgentInfo[];
  /** The validation config as data (the oracle itself is code: only whether there is one). */
  validation: {
    oracle: boolean;
    no_oracle?: string;
    max_return: number;
    max_steps?: number;
  };
}

/** One agent of a multi-agent environment as `GET /v1/environments` lists it. */
export interface AgentInfo {
  name: string;
  description?: string;
  /** The tools it may call. */
  tools: string[];
  /** The environment plays it: no client acts for it. */
  played: boolean;
}

const agentsInfo = (environment: Environment): AgentInfo[] | undefined =>
  environment.agents === undefined
    ? undefined
    : Object.entries(environment.agents).map(([name, a]) => ({
        name,
        ...(a.description === undefined ? {} : { description: a.description }),
        tools: [...(a.tools ?? environment.tools.keys())],
        played: a.play !== undefined
      }));

/** An environment's validation config as `GET /v1/environments` lists it. */
const validationInfo = (
  environment: Environment
): EnvironmentInfo["validation"] => {
  const v = environment.validation ?? {};
  return {
    oracle: v.oracle !== undefined,
    ...(v.noOracle === undefined ? {} : { no_oracle: v.noOracle }),
    max_return: v.maxReturn ?? 1,
    ...(v.maxSteps === undefined ? {} : { max_steps: v.maxSteps })
  };
};

/**
 * The components an environment's steps report but never add, as the
 * step answer names them (`format`, `episode.short`): what a chart or a
 * trainer needs to tell a metric from a reward, which the reports alone
 * cannot say (a metric's 1 looks like a reward's 1).
 */
const rewardMetrics = (environment: Environment): string[] | undefined =>
  environment.rubric === undefined && environment.episodeRubric === undefined
    ? undefined
    : [
        ...(environment.rubric?.metrics ?? []),
        ...(environment.episodeRubric === undefined
          ? []
          : metricsOf("episode", environment.episodeRubric.rubric))
      ];

export interface Registry {
  get(name: string): Environment;
  has(name: string): boolean;
  names(): string[];
  describe(): EnvironmentInfo[];
}

const jsonSchemaOf = (schema: z.ZodType): JsonObject => {
  try {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any"
    }) as JsonObject;
    return rest;
  } catch {
    return {};
  }
};

/** Names a message lists before it counts the rest; `details` lists them all. */
const NAMES_IN_MESSAGE = 20;

/**
 * The 404 of a name no environment has, naming those that exist, in the
 * message for a person and in `details.environments` for a program: every
 * transport that names an environment (a new session, MCP, OpenEnv,
 * Aviary, the CLI) answers it. The names are no secret: GET
 * /v1/environments lists them to anyone.
 */
export const unknownEnvironment = (
  name: string,
  known: readonly string[]
): RoostError => {
  const listed = known.slice(0, NAMES_IN_MESSAGE).join(", ");
  const more =
    known.length > NAMES_IN_MESSAGE
      ? ` and ${known.length - NAMES_IN_MESSAGE} more`
      : "";
  return new RoostError(
    "not_found",
    known.length === 0
      ? `No environment named "${name}": this server has none.`
      : `No environment named "${name}". This server has: ${listed}${more}.`,
    { environment: name, environments: [...known] }
  );
};

export const createRegistry = (
  environments: readonly Environment[]
): Registry => {
  const byName = new Map<string, Environment>();
  for (const env of environments) {
    if (byName.has(env.name)) {
      throw new RoostError(
        "invalid_request",
        `Two environments are named "${env.name}".`
      );
    }
    byName.set(env.name, env);
  }
  const infos = lazy(() =>
    [...byName.values()].map((env): EnvironmentInfo => {
      const metrics = rewardMetrics(env);
      const agents = agentsInfo(env);
      return {
        name: env.name,
        description: env.description,
        task_schema: jsonSchemaOf(env.task),
        state_schema: env.state.jsonSchema() as JsonObject,
        tools: env.toolSchemas,
        ...(env.dataset === undefined
          ? {}
          : env.dataset.size === undefined
            ? { dataset_generated: true }
            : { dataset_size: env.dataset.size }),
        ...(env.splits === undefined
          ? {}
          : {
              splits: Object.entries(env.splits).map(([name, d]) =>
                d.size === undefined
                  ? { name, generated: true }
                  : { name, size: d.size, generated: false }
              )
            }),
        ...(env.maxSteps ? { max_steps: env.maxSteps } : {}),
        ...(env.rubrics === undefined
          ? {}
          : { rubrics: [...env.rubrics.keys()] }),
        ...(env.tree ? { tree: describeTree(env.tree, env.tools) } : {}),
        ...(metrics === undefined ? {} : { reward_metrics: metrics }),
        ...(agents === undefined ? {} : { agents }),
        validation: validationInfo(env)
      };
    })
  );
  return {
    get(name) {
      const env = byName.get(name);
      if (env === undefined) throw unknownEnvironment(name, [...byName.keys()]);
      return env;
    },
    has: (name) => byName.has(name),
    names: () => [...byName.keys()],
    describe: infos
  };
};
