/** @module `useSession`: a session's live view and actions in a React component. */

import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useSyncExternalStore
} from "react";
import type { MutationOptions } from "../client/session-client";
import type { JsonValue } from "../json";
import type {
  ActionInput,
  ForkResponse,
  ResetResponse,
  RunCreated,
  Scope,
  SessionAction,
  StepResponse,
  ToolInvocationResponse
} from "../protocol";
import {
  agentOfCredential,
  scopeCan,
  scopeOfCredential
} from "../protocol/credential-scope";
import type { SessionState, ToolArgs, ToolName } from "./environment-types";
import type { StoreOptions } from "./session-store";
import type { SessionView } from "./session-view";
import { acquire, storeFor } from "./shared-stores";

export interface UseSessionOptions extends StoreOptions {
  /**
   * How long the socket outlives its last component (default 0: the next
   * turn of the event loop), so a remount soon after reuses it.
   */
  closeDelayMs?: number;
}

/** What `useSession` returns: the view's slices, then the actions. */
export interface SessionHandle<E = undefined>
  extends Omit<SessionView, "state"> {
  state: SessionState<E> | undefined;
  /**
   * A step over the socket (resent with its idempotency key after a
   * reconnect). `options` is `RoostSession.step`'s (`{ idempotencyKey }`);
   * a bare key string is the older form, still taken.
   */
  step(
    action: ActionInput,
    options?: MutationOptions | string
  ): Promise<StepResponse>;
  /**
   * A new episode; `state` seeds its state, and `pick` takes the task from
   * the dataset, or from a named split, instead of `task` (as the socket's).
   */
  reset(
    task?: JsonValue,
    state?: Record<string, JsonValue>,
    pick?: { taskIndex: number; split?: string }
  ): Promise<ResetResponse>;
  /** Runs one tool directly: no step, no transcript entry. */
  call<T extends ToolName<E>>(
    tool: T,
    args: ToolArgs<E, T>
  ): Promise<ToolInvocationResponse>;
  /** Starts a decision-tree run; its passes stream in as events. */
  run(
    prompt: string,
    options?: MutationOptions & { model?: string }
  ): Promise<RunCreated>;
  /** Copies the session `count` times; each copy has its own id and token. */
  fork(count?: number): Promise<ForkResponse>;
  /**
   * The scope the token holds: a scoped token's own (`observe.…`,
   * `act.…`, `grade.…`, `control.…`), `control` for a session's first
   * token or an API key. Read from the token, so it is known before the
   * socket opens; the server still decides every call.
   */
  scope: Scope;
  /**
   * In a multi-agent session, the agent a token of one agent plays or
   * watches (`act~x.…`): the view is that agent's, and its steps are its.
   * Undefined for any other token, which sees every agent.
   */
  agent: string | undefined;
  /**
   * True when the token cannot step (an `observe` or `grade` token): the
   * view watches, and a page hides its controls. An action tried anyway
   * rejects with the server's `forbidden` error.
   */
  readOnly: boolean;
  /** Whether the token's scope allows `action`, e.g. `can("fork")` to offer a Fork button. */
  can(action: SessionAction): boolean;
}

type Actions = Pick<
  SessionHandle,
  "step" | "reset" | "run" | "fork" | "scope" | "agent" | "readOnly" | "can"
> & {
  call: SessionHandle<undefined>["call"];
};

const SLICES = [
  "connection",
  "status",
  "state",
  "keys",
  "messages",
  "events",
  "lastSeq",
  "lastStep",
  "error"
] as const satisfies readonly (keyof SessionView)[];

/**
 * The session's view, live. A component re-renders only when a slice it
 * read changed: reading `messages` alone, a `state.changed` event does not
 * render it. Components with the same baseUrl, session and token share
 * one socket.
 *
 * @example
 * const { state, messages, step } = useSession<typeof counter>({ baseUrl, sessionId, token });
 */
export const useSession = <E = undefined>(
  options: UseSessionOptions
): SessionHandle<E> => {
  const { baseUrl, sessionId, token } = options;
  // biome-ignore lint/correctness/useExhaustiveDependencies: one store per baseUrl, session and token; other options apply when it is made
  const store = useMemo(() => storeFor(options), [baseUrl, sessionId, token]);
  const latest = useRef(options);
  latest.current = options;
  useEffect(
    () => acquire(store, latest.current, latest.current.closeDelayMs),
    [store]
  );

  // The slices read while rendering; a change elsewhere keeps the old snapshot.
  const read = useRef(new Set<keyof SessionView>()).current;
  const shown = useRef<SessionView | undefined>(undefined);
  const getSnapshot = useCallback((): SessionView => {
    const next = store.getView();
    const prev = shown.current;
    if (prev !== undefined && [...read].every((k) => prev[k] === next[k]))
      return prev;
    shown.current = next;
    return next;
  }, [store, read]);
  const view = useSyncExternalStore(store.subscribe, getSnapshot, getSnapshot);

  const actions = useMemo<Actions>(() => {
    const scope = scopeOfCredential(store.session.token);
    return {
      step: (action, options) => store.step(action, options),
      reset: (task, state, pick) => store.reset(task, state, pick),
      call: (tool, args) => store.call(tool, args),
      run: (prompt, runOptions) => store.session.startRun(prompt, runOptions),
      fork: (count) => store.fork(count),
      scope,
      agent: agentOfCredential(store.session.token),
      readOnly: !scopeCan(scope, "step"),
      can: (action) => scopeCan(scope, action)
    };
  }, [store]);

  return useMemo(() => {
    const handle = { ...actions } as SessionHandle<E>;
    for (const slice of SLICES)
      Object.defineProperty(handle, slice, {
        enumerable: true,
        get: () => {
          read.add(slice);
          return view[slice];
        }
      });
    return handle;
  }, [view, actions, read]);
};
