/** @module Types of tools: definitions, the context a tool runs with, and what a call yields. */

import type { JsonValue } from "../json";
import type { Message, ToolMessage } from "../messages/schema";
import type { StateAccess, StateShape } from "../state/types";
import type { Result, SelfHealingError, Update } from "../store/result";
import type {
  EnvironmentStore,
  HiddenStore,
  LocatedEntry
} from "../store/types";
import type { TreeData } from "../tree/types";
import type { CallerClient } from "./ask";

/** A narrow view of the session's own SQLite, for tables an environment declares. */
export interface SqlExec {
  exec<Row extends Record<string, unknown> = Record<string, unknown>>(
    query: string,
    ...params: unknown[]
  ): Row[];
}

/** How a tool (or the environment's evaluate) ends the episode or scores it. */
export interface EpisodeControl {
  /** Ends the episode; `reward`, if given, is added to the step's reward. */
  end(options?: { reward?: number }): void;
  addReward(amount: number): void;
  /** Ends the episode as truncated (out of budget rather than finished). */
  truncate(): void;
}

/** What a tool's `run` receives besides its arguments. */
export interface ToolContext<
  Shape extends StateShape = StateShape,
  Task = unknown
> {
  environment: EnvironmentStore;
  hidden: HiddenStore;
  state: StateAccess<Shape>;
  task: Task;
  /** Aborted when the call times out: pass it to fetch and stop waiting. */
  signal: AbortSignal;
  /** Streams an update (status, text, warning, self-healing error). */
  emit(update: Update): void;
  episode: EpisodeControl;
  /** Present inside a session; absent in the pure core. */
  sql?: SqlExec;
  /**
   * The run's tree data (Elysia's `tree_data`: user prompt, conversation
   * history, atlas, tasks completed, errors, the store read-only) when the
   * call is part of a decision-tree run, picked by the model or run by
   * `runIf`; absent for a plain `step`. A copy: changing it changes nothing.
   */
  tree?: TreeData;
  /** The agent whose step made the call, in a multi-agent environment; absent otherwise. */
  agent?: string;
  call: { id: string; tool: string };
  /**
   * The client that called, when it can be asked mid-call (an MCP client
   * calling the tool directly): see `ask`. Absent for a model's step.
   */
  client?: CallerClient;
  /**
   * Starts fresh isolates from source (Dynamic Workers): present inside a
   * session whose worker has a Worker Loader binding, absent elsewhere.
   * Code tools (roost-edge/code) run the model's code with it.
   */
  isolates?: IsolateStarter;
}

/**
 * Runs a module graph in a new isolate with no bindings and no network:
 * the default export of `modules["main.js"]` is a WorkerEntrypoint whose
 * `run(input, capabilities)` is called once. Functions in `capabilities`
 * reach the isolate as RPC stubs that call back into this one.
 */
export interface IsolateStarter {
  run(
    modules: Record<string, string>,
    input: unknown,
    capabilities: object,
    options: IsolateRunOptions
  ): Promise<unknown>;
}

/**
 * Dynamic Workers one Durable Object may have in flight at once
 * (Cloudflare's documented limit): a session's runs past it wait in a
 * queue for one to finish (session/isolates.ts) rather than fail in the
 * platform.
 */
export const MAX_ISOLATES_IN_FLIGHT = 10;

export interface IsolateRunOptions {
  /** CPU time the platform grants the isolate (enforced on Cloudflare only). */
  cpuMs?: number;
  /** Aborted when the caller gives up: a run still queued or running is let go. */
  signal?: AbortSignal;
  /** Called when the run leaves the session's queue and its isolate starts. */
  started?: () => void;
}

/** What `run` may be: a plain (async) function, or an async generator yielding Results and updates. */
export type ToolRun<Args, Shape extends StateShape, Task> = (
  args: Args,
  ctx: ToolContext<Shape, Task>
) =>
  | unknown
  | Promise<unknown>
  | AsyncGenerator<Result | Update, unknown, void>
  | Generator<Result | Update, unknown, void>;

export interface OutputToState {
  /** Field of the tool's object result; omitted means the whole result. */
  source?: string;
  handler?: (current: unknown, incoming: unknown) => unknown;
}

/** Hooks the executor calls as a call makes progress, so a session can stream it. */
export interface ExecutionHooks {
  onStart?(
    call: { id: string; tool: string },
    args: Record<string, unknown>
  ): void;
  onResult?(
    call: { id: string; tool: string },
    result: Result,
    stored: LocatedEntry
  ): void;
  onUpdate?(call: { id: string; tool: string }, update: Update): void;
  /** `exception` is set when the tool's own code threw (see CallOutcome). */
  onFinish?(
    call: { id: string; tool: string },
    message: ToolMessage,
    exception?: ToolException
  ): void;
}

/**
 * An exception the tool's own code threw: its `run` (a generator
 * included) or an `outputsToState` handler. It is for the tool's author:
 * the model's tool message says only `Tool x failed: <message>`. Refusals
 * of the model's call (an unknown tool, arguments its schema rejects) and
 * timeouts are not exceptions: nothing in the author's code threw them.
 */
export interface ToolException {
  message: string;
  /** The thrown Error's stack; absent when something other than an Error was thrown. */
  stack?: string;
}

/** One finished call: the tool message the model reads, and what it yielded. */
export interface CallOutcome {
  message: ToolMessage & { is_error: boolean };
  results: LocatedEntry[];
  /** The raw return value (before stringification), for outputsToState and callers. */
  value?: JsonValue;
  /** The first self-healing error the call yielded, when it failed that way. */
  error?: SelfHealingError;
  /** What the tool's code threw, stack included, when it threw. Never in `message`. */
  exception?: ToolException;
}

export type { Message };
