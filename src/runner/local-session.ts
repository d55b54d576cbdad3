/** @module A whole session in memory, decision-tree runs included: test an environment or a tree in plain Node, without Workers. */

import type { Environment } from "../environment/define-environment";
import {
  createEpisodeSession,
  type EpisodeSession,
  type EpisodeSessionOptions
} from "../environment/episode-session";
import type { ThrownByTool } from "../environment/hook-calls";
import { RoostError } from "../errors";
import type { EventFrame, EventType } from "../protocol";
import type { RunOutcome } from "../protocol/http-runs";
import type { Judges } from "../rewards/judges";
import type { ExecutionHooks } from "../tools/types";
import { addToHistory } from "../tree/tree-data";
import type { DecisionModel, HistoryMessage, PromptTasks } from "../tree/types";
import { judgeModel } from "./judge-model";
import { type RunProgress, runPass } from "./loop";

/** An event a local run streams, as a session's socket would (without `seq`, `at` and `episode`). */
export type LocalEvent = {
  [T in EventType]: Omit<
    Extract<EventFrame, { type: T }>,
    "seq" | "at" | "episode"
  >;
}[EventType];

export interface LocalRunOptions {
  /** Decides at each node; defaults to the tree's own `model`. */
  model?: DecisionModel;
  /**
   * Cancels the run. It is checked between passes and handed to the model
   * and tools; a pass it interrupts keeps what it wrote before (memory has
   * no rollback, unlike a session's commit).
   */
  signal?: AbortSignal;
  /** Each `tree.decision`, `update` and the like, as it happens. */
  onEvent?(event: LocalEvent): void;
}

export interface LocalRun {
  runId: string;
  state: "completed" | "cancelled";
  /** Set when the run completed. */
  outcome?: RunOutcome;
  /** The final answer, when the run completed. */
  text?: string;
  passes: number;
  decisions: number;
  /** Tasks completed in this episode so far, as the tree data records them. */
  tasks: PromptTasks[];
  /** The episode's conversation (Elysia's history), this run included. */
  history: HistoryMessage[];
  /**
   * What the run's tools threw, stacks included, in call order; absent
   * when none threw. The model read only `Tool x failed: <message>`.
   */
  exceptions?: ThrownByTool[];
}

export interface LocalSession extends EpisodeSession {
  /**
   * Runs the environment's decision tree on `prompt` with the same loop a
   * Durable Object session drives, pass after pass, until it ends. Resets
   * first if the session has no episode yet. Tasks, errors and the
   * conversation carry over between runs of one episode, as in a session.
   */
  run(prompt: string, options?: LocalRunOptions): Promise<LocalRun>;
}

export interface LocalSessionOptions extends EpisodeSessionOptions {
  /**
   * The models a rubric's judges (rewards/judge.ts) may name, by name; the
   * first is the default. Without them a judge reports that no model is
   * configured. A local session keeps no verdicts: each step asks anew.
   */
  judgeModels?: Record<string, DecisionModel>;
}

/** What a tree run keeps per episode between runs (a session keeps it in `tree_data`). */
interface TreeMemory {
  episode: number;
  tasks: PromptTasks[];
  errors: Record<string, string[]>;
  history: HistoryMessage[];
}

/**
 * The same reset/step/call semantics a Durable Object session has, and its
 * tree runs, over memory backends; nothing is persisted.
 *
 * @example
 * const s = createLocalSession(counter);
 * await s.reset();
 * await s.step(toolCalls({ name: "incr" }));
 *
 * const run = await createLocalSession(catalog).run("Find red shoes", { model });
 */
export const createLocalSession = (
  environment: Environment,
  { judgeModels, ...options }: LocalSessionOptions = {}
): LocalSession => {
  const session = createEpisodeSession(environment, {
    ...options,
    ...(judgeModels === undefined ? {} : { judges: localJudges(judgeModels) })
  });
  let memory: TreeMemory = { episode: 0, tasks: [], errors: {}, history: [] };
  let runs = 0;
  let running = false;

  const run = async (
    prompt: string,
    runOptions: LocalRunOptions = {}
  ): Promise<LocalRun> => {
    const tree = environment.tree;
    if (tree === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${environment.name} defines no decision tree; runs need one.`
      );
    }
    const model = runOptions.model ?? tree.model;
    if (model === undefined) {
      throw new RoostError(
        "invalid_request",
        `Environment ${environment.name}'s tree has no model of its own; pass { model }.`
      );
    }
    if (prompt === "") {
      throw new RoostError("invalid_request", "The prompt is empty.");
    }
    // One loop at a time, as a session refuses a second active run.
    if (running) {
      throw new RoostError(
        "conflict",
        "A run is still going; wait for it first."
      );
    }
    running = true;
    try {
      if (session.status.episode === 0) await session.reset();
      const episode = session.status.episode;
      if (memory.episode !== episode) {
        memory = { episode, tasks: [], errors: {}, history: [] };
      }
      const { parts } = session;
      // The tools this episode's reset chose; fixed for the run.
      const episodeEnv = session.episodeEnv;
      parts.state.set("messages", { role: "user", content: prompt });
      let progress: RunProgress = {
        runId: `local_${++runs}`,
        prompt,
        passes: 0,
        decisions: 0,
        tasks: memory.tasks,
        errors: memory.errors,
        history: addToHistory(memory.history, "user", prompt)
      };
      const emit = (type: EventType, data: object) =>
        runOptions.onEvent?.({ type, ...data } as LocalEvent);
      const { signal } = runOptions;
      // Collected beside the caller's own hooks, which still see every call.
      const exceptions: ThrownByTool[] = [];
      const execute = {
        ...options,
        hooks: {
          ...options.hooks,
          onFinish: ((call, message, exception) => {
            if (exception !== undefined) {
              exceptions.push({
                callId: call.id,
                tool: call.tool,
                ...exception
              });
            }
            options.hooks?.onFinish?.(call, message, exception);
          }) satisfies ExecutionHooks["onFinish"]
        }
      };
      const thrown = () => (exceptions.length > 0 ? { exceptions } : {});
      const remember = (p: RunProgress) => {
        memory = {
          episode,
          tasks: p.tasks,
          errors: p.errors,
          history: p.history
        };
      };
      for (;;) {
        if (signal?.aborted) {
          remember(progress);
          emit("tree.completed", {
            run_id: progress.runId,
            payload: { state: "cancelled" }
          });
          return { ...summary(progress), state: "cancelled", ...thrown() };
        }
        let result: Awaited<ReturnType<typeof runPass>>;
        try {
          result = await runPass({
            env: episodeEnv,
            tree,
            parts,
            task: session.task,
            model,
            progress,
            emit,
            execute,
            ...(signal ? { signal } : {})
          });
        } catch (error) {
          if (signal?.aborted) continue;
          throw error;
        }
        progress = result.progress;
        remember(progress);
        if (result.end !== undefined) {
          emit("tree.completed", {
            run_id: progress.runId,
            payload: {
              state: "completed",
              outcome: result.end.outcome,
              text: result.end.text,
              passes: progress.passes
            }
          });
          return {
            ...summary(progress),
            state: "completed",
            outcome: result.end.outcome,
            text: result.end.text,
            ...thrown()
          };
        }
      }
    } finally {
      running = false;
    }
  };

  return Object.assign(session, { run });
};

const summary = (p: RunProgress) => ({
  runId: p.runId,
  passes: p.passes,
  decisions: p.decisions,
  tasks: p.tasks,
  history: p.history
});

/** Judges over models handed in: the first is the default; nothing is kept. */
const localJudges = (models: Record<string, DecisionModel>): Judges => ({
  model: (name, limits) => {
    const model =
      name === undefined
        ? Object.values(models)[0]
        : Object.hasOwn(models, name)
          ? models[name]
          : undefined;
    return model === undefined ? undefined : judgeModel(model, limits);
  },
  recall: () => undefined,
  keep: () => {}
});
