/** @module A session's episodes in memory (reset, step, call): the part of a local session that needs no decision model. */

import type { AssistantMessage, Message } from "../messages/schema";
import { DEFAULT_LIMITS } from "../protocol/limits";
import { type InitialState, seedState } from "../state/initial-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import type { OpenAITool } from "../tools/json-schema";
import type { CallOutcome } from "../tools/types";
import type { Environment } from "./define-environment";
import {
  callInEpisode,
  checkToolCalls,
  noEpisode,
  openEpisode,
  requireEpisode,
  resetEpisode,
  stepEpisode
} from "./episode-machine";
import { episodeEnvironment } from "./episode-tools";
import type { SessionParts, StepOptions, StepOutcome } from "./hook-calls";
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
  /** One step; in a multi-agent environment `agent`'s, else the one agent's whose turn it is. */
  step(action: AssistantMessage, agent?: string): Promise<StepOutcome>;
  call(tool: string, args?: Record<string, unknown>): Promise<CallOutcome>;
}

export interface EpisodeSessionOptions extends StepOptions {
  /** Tool calls one action may make, as a session's `limits.toolCallsPerAction` (default 64). */
  toolCallsPerAction?: number;
}

/**
 * The same reset/step/call semantics a Durable Object session has, over
 * memory backends; nothing is persisted. `createLocalSession` (the
 * runner's) adds decision-tree runs on top.
 */
export const createEpisodeSession = (
  environment: Environment,
  options: EpisodeSessionOptions = {}
): EpisodeSession => {
  const maxToolCalls =
    options.toolCallsPerAction ?? DEFAULT_LIMITS.toolCallsPerAction;
  let parts = freshParts(environment);
  let rec = noEpisode();
  let calls = 0;
  return {
    get parts() {
      return parts;
    },
    get status() {
      return {
        episode: rec.episode,
        steps: rec.steps,
        reward: rec.reward,
        return: rec.total,
        done: rec.done,
        truncated: rec.truncated
      };
    },
    get task() {
      return rec.episodeTask;
    },
    get episodeEnv() {
      return episodeEnvironment(environment, rec.episodeTools);
    },
    async reset(request = {}) {
      const task = resolveTask(environment, request);
      const nextParts = freshParts(environment);
      // A bad task or state throws before anything changes.
      if (request.state !== undefined)
        seedState(nextParts.state, request.state);
      // The next episode is staged on a copy of the record and new parts,
      // and kept only once the environment's reset succeeded, so a reset
      // that throws (or chooses a tool the environment lacks) leaves the
      // last episode as it was, as a Durable Object session's commit does.
      const next = { ...rec };
      openEpisode(next);
      const out = await resetEpisode(
        environment,
        next,
        nextParts,
        task,
        options
      );
      rec = next;
      parts = nextParts;
      return out;
    },
    async step(action, agent) {
      requireEpisode(rec, "running");
      checkToolCalls(action, maxToolCalls);
      return stepEpisode(
        environment,
        rec,
        parts,
        action,
        agent === undefined ? options : { ...options, agent }
      );
    },
    async call(tool, args = {}) {
      requireEpisode(rec, "episode");
      return callInEpisode(
        environment,
        rec,
        parts,
        { id: `direct_${++calls}`, tool, arguments: args },
        options
      );
    }
  };
};

const freshParts = (environment: Environment): SessionParts => ({
  environment: createEnvironmentStore(new MemoryStoreBackend()),
  hidden: new MemoryHiddenStore(),
  state: new State(
    environment.state,
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  )
});
