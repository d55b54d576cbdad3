/** @module Which decision model a run uses: configured factories, env-var adapters, the environment's own. */

import type { Environment } from "../environment/define-environment";
import { RoostError } from "../errors";
import type { ModelInfo } from "../protocol/http-environments";
import { openAIModelFromEnv } from "../runner/openai-model";
import { withRetries } from "../runner/retry";
import { workersAIModelFromEnv } from "../runner/workers-ai-model";
import type { DecisionModel } from "../tree/types";

/** Builds a model from the worker's bindings and secrets; undefined when not configured. */
export type ModelFactory = (
  env: Record<string, unknown>
) => DecisionModel | undefined;

/**
 * Names a run may ask for, in the order the default is picked:
 * `createRoost({ models })` entries, `openai` (ROOST_MODEL_BASE_URL and
 * ROOST_MODEL set), `workers-ai` (opt-in: ROOST_WORKERS_AI_MODEL and an `AI`
 * binding), then the environment's own `tree.model` (e.g. a scripted model).
 * Every model, the environment's own included, gets a time limit per call
 * and backoff retries of retryable errors: a model that never answers must
 * not hold the session's queue.
 */
export const createModelResolver = (
  env: Record<string, unknown>,
  configured: Record<string, ModelFactory> = {}
) => {
  const cache = new Map<string, DecisionModel | undefined>();
  /** The configured model as built, without retries: judges bring their own. */
  const raw = (name: string): DecisionModel | undefined => {
    if (!cache.has(name)) {
      // Own keys only: a client names the model, and "__proto__" is a name.
      const factory =
        (Object.hasOwn(configured, name) ? configured[name] : undefined) ??
        (name === "openai"
          ? openAIModelFromEnv
          : name === "workers-ai"
            ? workersAIModelFromEnv
            : undefined);
      cache.set(name, factory?.(env));
    }
    return cache.get(name);
  };
  // Wrapped per call: a plain object around the cached model, nothing kept.
  const remote = (name: string): DecisionModel | undefined => {
    const model = raw(name);
    return model === undefined ? undefined : withRetries(model);
  };
  const names = [...Object.keys(configured), "openai", "workers-ai"];
  /**
   * The model a judge (rewards/judge.ts) names, unwrapped, or the first
   * configured when it names none. An environment's own `tree.model` is no
   * judge's: it is a decision script, and a judge's default is the
   * deployment's model.
   */
  const judge = (name: string | undefined): DecisionModel | undefined => {
    if (name !== undefined) return names.includes(name) ? raw(name) : undefined;
    for (const candidate of names) {
      const model = raw(candidate);
      if (model !== undefined) return model;
    }
    return undefined;
  };
  /** What a run of `environment` may name, in the order the default is picked. */
  const available = (environment: Environment): ModelInfo[] => {
    const own = environment.tree?.model;
    return [
      ...names
        .filter((n) => remote(n) !== undefined)
        .map((name) => ({ name, source: "configured" as const })),
      ...(own === undefined
        ? []
        : [{ name: own.name, source: "environment" as const }])
    ];
  };
  const resolve = (
    name: string | undefined,
    environment: Environment
  ): { name: string; model: DecisionModel } => {
    // Wrapped per resolve: a plain object around the model, nothing kept.
    const own = environment.tree?.model && withRetries(environment.tree.model);
    if (name === undefined) {
      for (const candidate of names) {
        const model = remote(candidate);
        if (model !== undefined) return { name: candidate, model };
      }
      if (own !== undefined) return { name: own.name, model: own };
      throw new RoostError(
        "invalid_request",
        "No decision model is configured: set ROOST_MODEL_BASE_URL and ROOST_MODEL, or give the environment's tree a model."
      );
    }
    if (own !== undefined && name === own.name) return { name, model: own };
    const model = remote(name);
    if (model !== undefined) return { name, model };
    const known = available(environment).map((m) => m.name);
    throw new RoostError(
      "invalid_request",
      `Unknown or unconfigured model "${name}". Available: ${known.join(", ") || "none"}.`,
      { available: known }
    );
  };
  return Object.assign(resolve, { available, judge });
};

export type ModelResolver = ReturnType<typeof createModelResolver>;
