/** @module Executing one action's tool calls: validation, timeouts, concurrency, streaming, state merges. */

import { RoostError } from "../errors";
import type { JsonValue } from "../json";
import type { Content, ToolCall } from "../messages/schema";
import type { StateAccess, StateShape } from "../state/types";
import {
  type Result,
  type SelfHealingError,
  UPDATE_KINDS,
  type Update
} from "../store/result";
import type {
  EnvironmentStore,
  HiddenStore,
  LocatedEntry
} from "../store/types";
import type { TreeData } from "../tree/types";
import { type JsonLimits, prepareArguments } from "./arguments";
import { type CallerClient, CallInterrupted, CallRefused } from "./ask";
import {
  capContent,
  describeError,
  isToolContent,
  toContent,
  toException
} from "./content";
import type { Tool } from "./define-tool";
import {
  EPISODE_ACCESS,
  guardWrites,
  HIDDEN_ACCESS,
  STATE_ACCESS,
  STORE_ACCESS
} from "./guard";
import { type MergeableState, mergeOutputs } from "./outputs";
import { ReadWriteLock } from "./rw-lock";
import type {
  CallOutcome,
  EpisodeControl,
  ExecutionHooks,
  IsolateStarter,
  SqlExec,
  ToolContext,
  ToolException
} from "./types";

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_CONTENT_BYTES = 256 * 1024;

/** Everything a call may read or change. */
export interface ExecutionScope {
  tools: ReadonlyMap<string, Tool>;
  environment: EnvironmentStore;
  hidden: HiddenStore;
  state: MergeableState;
  task: unknown;
  episode: EpisodeControl;
  sql?: SqlExec;
  /** The run's tree data, when the call is part of a decision-tree run. */
  tree?: TreeData;
  /** The agent whose step made the call, in a multi-agent environment. */
  agent?: string;
}

export interface ExecuteOptions {
  hooks?: ExecutionHooks;
  defaultTimeoutMs?: number;
  maxContentBytes?: number;
  /** Depth and string limits for arguments that arrive as a JSON string. */
  jsonLimits?: JsonLimits;
  /** Handed to every call as `ctx.isolates` (a session's Worker Loader binding). */
  isolates?: IsolateStarter;
  /** Handed to every call as `ctx.client`: the MCP client calling the tool directly. */
  client?: CallerClient;
  /**
   * The call was made by a client, not a model's step: a tool's refusal
   * (`CallRefused`) is then the caller's error; in a step the model reads it.
   */
  direct?: boolean;
  /**
   * Turns a thrown stack's lines into the author's files: a development
   * server's (cli/stack-map-host.ts); absent elsewhere, the stack kept as
   * V8 wrote it.
   */
  mapStack?: (stack: string) => Promise<string>;
}

interface Ran {
  ok: boolean;
  content: Content;
  value?: unknown;
  results: LocatedEntry[];
  healing?: SelfHealingError;
  /** What the tool's own code threw; never a refusal of the model's call or a timeout. */
  exception?: ToolException;
}

/**
 * Runs an action's calls, concurrently unless a tool is not
 * concurrency-safe, and answers in request order. Nothing a call does wrong
 * throws: unknown tools, bad arguments, exceptions and timeouts all become
 * error tool messages the model can read.
 */
export const executeToolCalls = async (
  calls: readonly ToolCall[],
  scope: ExecutionScope,
  options: ExecuteOptions = {}
): Promise<CallOutcome[]> => {
  const lock = new ReadWriteLock();
  const runs = calls.map((call) => runCall(call, scope, options, lock));
  const settled = await Promise.all(runs);
  const maxBytes = options.maxContentBytes ?? DEFAULT_TOOL_CONTENT_BYTES;
  // Merges apply in request order after every call settled, like Haystack,
  // so concurrent calls never see each other's outputs half-merged.
  return settled.map((ran, i) => {
    const call = calls[i]!;
    const tool = scope.tools.get(call.function.name);
    let { ok, content, exception } = ran;
    if (ok && tool?.outputsToState && !isToolContent(ran.value)) {
      const failure = mergeOutputs(
        scope.state,
        call.function.name,
        tool,
        ran.value
      );
      if (failure !== undefined) {
        ok = false;
        content = failure.content;
        exception = failure.exception;
      }
    }
    const outcome: CallOutcome = {
      message: {
        role: "tool",
        tool_call_id: call.id,
        name: call.function.name,
        content: capContent(content, maxBytes),
        is_error: !ok
      },
      results: ran.results,
      ...(ok && ran.value !== undefined && !isToolContent(ran.value)
        ? { value: ran.value as JsonValue }
        : {}),
      ...(ran.healing ? { error: ran.healing } : {}),
      ...(exception ? { exception } : {})
    };
    options.hooks?.onFinish?.(
      { id: call.id, tool: call.function.name },
      outcome.message,
      exception
    );
    return outcome;
  });
};

/** Most tool names an unknown-tool message lists. */
const LISTED_TOOLS = 20;

/**
 * Aviary's text for a name that is no tool ("Invalid tool call: x"), then
 * the names that are: the model's next call can pick one. Only the
 * episode's tools are in `tools`, so one left out is not named.
 */
const unknownTool = (
  name: string,
  tools: ReadonlyMap<string, unknown>
): string => {
  const names = [...tools.keys()];
  const listed = names.slice(0, LISTED_TOOLS).join(", ");
  const more =
    names.length > LISTED_TOOLS
      ? ` and ${names.length - LISTED_TOOLS} more`
      : "";
  return `Invalid tool call: ${name} is not a tool. Tools: ${listed || "none"}${more}.`;
};

const runCall = async (
  call: ToolCall,
  scope: ExecutionScope,
  options: ExecuteOptions,
  lock: ReadWriteLock
): Promise<Ran> => {
  const name = call.function.name;
  const tool = scope.tools.get(name);
  if (tool === undefined) {
    return { ok: false, content: unknownTool(name, scope.tools), results: [] };
  }
  const args = prepareArguments(
    tool,
    name,
    call.function.arguments,
    scope.state,
    options.jsonLimits
  );
  if (!args.ok) return { ok: false, content: args.message, results: [] };

  const release = await lock.acquire(tool.concurrencySafe === false);
  const ref = { id: call.id, tool: name };
  options.hooks?.onStart?.(ref, args.value);
  const results: LocatedEntry[] = [];
  const yielded: Result[] = [];
  let healing: SelfHealingError | undefined;
  const onUpdate = (update: Update) => {
    if (update.kind === "self_healing_error") healing ??= update;
    options.hooks?.onUpdate?.(ref, update);
  };
  const ms =
    tool.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  // Made when the tool first reads its signal: most never do, and each
  // controller is an object of the runtime's, not a plain one.
  let controller: AbortController | undefined;
  /** Why the call was aborted (its timeout), set before the signal fires. */
  let aborted: Error | undefined;
  const signal = (): AbortSignal => {
    if (controller === undefined) {
      controller = new AbortController();
      if (aborted !== undefined) controller.abort(aborted);
    }
    return controller.signal;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Told apart from what the tool threw: a timeout is no exception of its code.
  let timeout: Error | undefined;
  /** The timeout, counted from `started` (the call's start). */
  const timedOut = (started: number) =>
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          aborted = new Error(`timed out after ${ms} ms`);
          controller?.abort(aborted);
          timeout = new Error(`Tool ${name} timed out after ${ms} ms.`);
          reject(timeout);
        },
        Math.max(0, ms - (Date.now() - started))
      );
    });
  const revoked = () => aborted !== undefined;
  const label = `Tool call ${call.id} (${name})`;
  const ctx: ToolContext<StateShape, unknown> = {
    environment: guardWrites(scope.environment, STORE_ACCESS, revoked, label),
    hidden: guardWrites(scope.hidden, HIDDEN_ACCESS, revoked, label),
    state: guardWrites(
      scope.state as StateAccess,
      STATE_ACCESS,
      revoked,
      label
    ),
    task: scope.task,
    get signal() {
      return signal();
    },
    emit: (update) => {
      if (!revoked()) onUpdate(update);
    },
    episode: guardWrites(scope.episode, EPISODE_ACCESS, revoked, label),
    ...(scope.sql ? { sql: scope.sql } : {}),
    ...(scope.tree ? { tree: scope.tree } : {}),
    ...(scope.agent === undefined ? {} : { agent: scope.agent }),
    ...(options.isolates ? { isolates: options.isolates } : {}),
    ...(options.client ? { client: options.client } : {}),
    call: ref
  };
  const onItem = (item: Result | Update) => {
    if (item.kind === "result") {
      const stored = ctx.environment.add(name, item);
      results.push(stored);
      yielded.push(item);
      options.hooks?.onResult?.(ref, item, stored);
    } else onUpdate(item);
  };
  try {
    const started = Date.now();
    const out = tool.run(args.value, ctx);
    // A tool that answered synchronously is done, and no timer could have
    // fired meanwhile: only a promise or an iterator races its timeout,
    // armed now for what is left of it.
    const value =
      isIterator(out) || isThenable(out)
        ? await Promise.race([consume(out, onItem, revoked), timedOut(started)])
        : out;
    if (healing !== undefined) {
      // The tool message says what to do differently, or, when the tool
      // had no advice, what went wrong.
      const content = healing.avoidable
        ? healing.feedback
        : healing.message || healing.feedback;
      return { ok: false, content, results, healing };
    }
    // Malformed parts are the tool's own error, caught below.
    return { ok: true, content: toContent(value, yielded), value, results };
  } catch (error) {
    // The tool refused the call: a client that called it hears of it; in
    // a step, the model reads it like any failure.
    if (error instanceof CallRefused) {
      const message = `Tool ${name} refused the call: ${error.message}`;
      if (!options.direct) return { ok: false, content: message, results };
      throw new RoostError("invalid_request", message, { refused_by: name });
    }
    // The client must answer first, or cannot: the caller hears of it.
    if (error instanceof CallInterrupted) throw error;
    // The model reads the message only; the stack is the author's, for the
    // session's log and its developer (CallOutcome.exception).
    return {
      ok: false,
      content: `Tool ${name} failed: ${describeError(error)}`,
      results,
      ...(error !== undefined && error === timeout
        ? {}
        : { exception: await mappedException(error, options.mapStack) })
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    release();
  }
};

/** What the tool threw, its stack in the author's files where the runtime can say. */
const mappedException = async (
  error: unknown,
  mapStack: ExecuteOptions["mapStack"]
): Promise<ToolException> => {
  const exception = toException(error);
  return mapStack === undefined || exception.stack === undefined
    ? exception
    : { ...exception, stack: await mapStack(exception.stack) };
};

type Yielded = Result | Update;
type AnyIterator = AsyncIterator<Yielded, unknown> | Iterator<Yielded, unknown>;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

const isIterator = (value: unknown): value is AnyIterator =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { next?: unknown }).next === "function" &&
  (Symbol.asyncIterator in value || Symbol.iterator in value);

/** Awaits a plain return, or drains a generator and returns its return value. */
const consume = async (
  out: unknown,
  onItem: (item: Yielded) => void,
  revoked: () => boolean
): Promise<unknown> => {
  if (!isIterator(out)) return await out;
  try {
    while (true) {
      const step = await out.next();
      if (step.done) return step.value;
      if (revoked()) return undefined;
      const item = step.value as unknown;
      if (!isYielded(item)) {
        throw new Error(
          "a tool may yield only result(...) or an update (status, text, warning, error, progress, log)."
        );
      }
      onItem(item);
    }
  } finally {
    if (revoked()) await out.return?.(undefined);
  }
};

const isYielded = (item: unknown): item is Yielded =>
  typeof item === "object" &&
  item !== null &&
  ["result", ...UPDATE_KINDS].includes(
    (item as { kind?: unknown }).kind as string
  );
