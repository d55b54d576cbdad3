/** @module A session's episodes in memory (reset, step, call): the part of a local session that needs no decision model. */

import { RoostError } from "../errors";
import type { AssistantMessage, Message } from "../messages/schema";
import { type InitialState, seedState } from "../state/initial-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import type { ExecuteOptions } from "../tools/execute";
import type { OpenAITool } from "../tools/json-schema";
import type { CallOutcome } from "../tools/types";
import type { Environment } from "./define-environment";
import {
  invokeTool,
  runReset,
  runStep,
  type SessionParts,
  type StepOutcome
} from "./episode";
import {
  episodeEnvironment,
  notOffered,
  offeredInEpisode
} from "./episode-tools";
import { resolveTask } from "./task";

export interface EpisodeStatus {
  episode: number;
  steps: number;
  reward: number;
  return: number;
  done: boolean;
  truncated: boolean;
}

export interface EpisodeSession {
  readonly parts: SessionParts;
  readonly status: EpisodeStatus;
  /** The current episode's task (undefined before the first reset). */
  readonly task: unknown;
  /** The environment as this episode sees it: only the tools its reset chose. */
  readonly episodeEnv: Environment;
  /** `state` seeds the episode's state, checked like a write (see seedState). */
  reset(request?: {
    task?: unknown;
    task_index?: number;
    split?: string;
    state?: InitialState;
  }): Promise<{
    observations: Message[];
    /** The tools this episode offers: all, or the subset reset chose. */
    tools: OpenAITool[];
  }>;
  step(action: AssistantMessage): Promise<StepOutcome>;
  call(tool: string, args?: Record<string, unknown>): Promise<CallOutcome>;
}

/**
 * The same reset/step/call semantics a Durable Object session has, over
 * memory backends; nothing is persisted. `createLocalSession` (the
 * runner's) adds decision-tree runs on top.
 */
export const createEpisodeSession = (
  env: Environment,
  options: ExecuteOptions = {}
): EpisodeSession => {
  let parts = freshParts(env);
  let task: unknown;
  /** The subset the last reset chose; undefined offers every tool. */
  let tools: string[] | undefined;
  let calls = 0;
  const status: EpisodeStatus = {
    episode: 0,
    steps: 0,
    reward: 0,
    return: 0,
    done: false,
    truncated: false
  };
  const running = () => status.episode > 0 && !status.done && !status.truncated;
  return {
    get parts() {
      return parts;
    },
    get status() {
      return { ...status };
    },
    get task() {
      return task;
    },
    get episodeEnv() {
      return episodeEnvironment(env, tools);
    },
    async reset(request = {}) {
      const next = resolveTask(env, request);
      const nextParts = freshParts(env);
      // A bad task or state throws before anything changes.
      if (request.state !== undefined)
        seedState(nextParts.state, request.state);
      // The environment's reset runs on the new parts; only once it
      // succeeded does the session move to them, so a reset that throws
      // (or chooses a tool the environment lacks) leaves the last episode
      // as it was, as a Durable Object session's does.
      const out = await runReset(env, nextParts, next, options);
      task = next;
      parts = nextParts;
      tools = out.tools;
      Object.assign(status, {
        episode: status.episode + 1,
        steps: 0,
        reward: 0,
        return: 0,
        done: false,
        truncated: false
      });
      return {
        observations: out.observations,
        tools: [...episodeEnvironment(env, tools).toolSchemas]
      };
    },
    async step(action) {
      if (!running()) {
        throw new RoostError(
          "episode_not_running",
          status.episode === 0
            ? "Reset the session before stepping."
            : "The episode has ended; reset to start another."
        );
      }
      const outcome = await runStep(
        episodeEnvironment(env, tools),
        parts,
        task,
        status.steps + 1,
        action,
        options
      );
      status.steps++;
      status.reward = outcome.reward;
      status.return += outcome.reward;
      status.done = outcome.done;
      status.truncated = outcome.truncated;
      return outcome;
    },
    async call(tool, args = {}) {
      if (status.episode === 0) {
        throw new RoostError(
          "episode_not_running",
          "Reset the session before calling tools."
        );
      }
      if (!env.tools.has(tool)) {
        throw new RoostError(
          "not_found",
          `Environment ${env.name} has no tool "${tool}".`
        );
      }
      if (tools !== undefined && !offeredInEpisode(tools, tool)) {
        throw notOffered(env, tool, tools);
      }
      return invokeTool(
        env,
        parts,
        task,
        { id: `direct_${++calls}`, tool, arguments: args },
        options
      );
    }
  };
};

const freshParts = (env: Environment): SessionParts => ({
  environment: createEnvironmentStore(new MemoryStoreBackend()),
  hidden: new MemoryHiddenStore(),
  state: new State(
    env.state,
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  )
});
