/**
 * @module The operation table: every session operation declared once. The
 * Durable Object's RPC, HTTP, the session WebSocket and MCP all reach a
 * session through `dispatch`, so an input check, an idempotency key, a
 * limit or a precondition is enforced once, whatever the transport.
 */

import { fromErrorBody, RoostError } from "../../errors";
import { issuesToErrorBody } from "../../protocol/error-body";
import type { Grant } from "../../protocol/scopes";
import { type IdempotencyKey, requestHash } from "../../storage/idempotency";
import { explainFailure } from "../hook-log";
import type { AnyOperation, OperationTable } from "../layer";
import type { SessionRuntime } from "../runtime";
import { asGrantedAgent, checkGrant } from "./check-grant";
import { issueToken, readHidden, revokeTokens } from "./credentials";
import type { Operation } from "./define";
import {
  forkBegin,
  forkChunk,
  forkEnd,
  importAbort,
  importBegin,
  importChunk,
  importEnd
} from "./fork-steps";
import { create, destroy, events, expectUse, status } from "./lifecycle";
import { call, reset, step, tools } from "./reset-step-call";
import { cancelRun, readRun, startRun } from "./runs";
import { frame, messages, patchState, readState } from "./state";
import {
  addEntry,
  readStore,
  removeEntry,
  replaceEntry,
  storeKeys
} from "./store";

/** The session core's operations; layers add theirs (session/layer.ts). */
export const CORE_OPERATIONS = {
  create,
  status,
  expectUse,
  destroy,
  events,
  reset,
  step,
  call,
  tools,
  readStore,
  storeKeys,
  addEntry,
  replaceEntry,
  removeEntry,
  readState,
  patchState,
  readHidden,
  issueToken,
  revokeTokens,
  messages,
  frame,
  startRun,
  readRun,
  cancelRun,
  forkBegin,
  forkChunk,
  forkEnd,
  importBegin,
  importChunk,
  importEnd,
  importAbort
} as const;

/**
 * The operations a layer adds, by name, for the types of every transport
 * and stub: each layer declares its own here by declaration merging (as
 * Hono's ContextVariableMap), so the table's types follow the layers a
 * program imports, and the core imports none of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the layers' declaration merging.
export interface LayerOperations {}

type Table = typeof CORE_OPERATIONS & LayerOperations;
export type OperationName = keyof Table;
export type OperationInput<N extends OperationName> = Parameters<
  Table[N]["handle"]
>[1];
export type OperationOutput<N extends OperationName> = Awaited<
  ReturnType<Table[N]["handle"]>
>;

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

// Visible ASCII only: the key is echoed in messages and stored as text.
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Binds a client's Idempotency-Key to an operation: checked, scoped by the
 * operation, and hashed over the part of the input it declares (canonical
 * JSON), so the same request over HTTP or the WebSocket is one request.
 * An operation that declares no binding (a read, a cancel) ignores keys,
 * as its HTTP route always has.
 */
export const bindKey = async <I>(
  op: Operation<I, unknown>,
  input: I,
  key: string
): Promise<IdempotencyKey | undefined> => {
  if (!KEY_PATTERN.test(key)) {
    throw new RoostError(
      "invalid_request",
      `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters.`,
      { field: IDEMPOTENCY_HEADER }
    );
  }
  if (op.idempotency === undefined) return undefined;
  return {
    scope: op.idempotency.scope(input),
    key,
    hash: await requestHash(op.idempotency.hashed(input))
  };
};

/**
 * Every operation this worker's layers declared, for the worker's side of
 * a call (the gateway's retry rules): the core's, and each layer's once
 * `createRoost` is given it. A session runs only its own class's table.
 */
const known: Record<string, AnyOperation> = { ...CORE_OPERATIONS };

/** Makes a layer's operations known to the worker's side of calls. */
export const learnOperations = (table: OperationTable): void => {
  Object.assign(known, table);
};

/** An operation by name, if the core or a chosen layer declares it. */
export const knownOperation = (name: string): AnyOperation | undefined =>
  Object.hasOwn(known, name) ? known[name] : undefined;

/**
 * Runs operation `name` on a session for a credential that holds `grant`;
 * `key` is the client's Idempotency-Key, if it sent one. The input is parsed with the
 * operation's schema here, whatever checked it before: an RPC caller, a
 * socket frame and an HTTP body all meet the same contract, and a
 * transport's stricter checks (its documented limits) come on top.
 */
export const dispatch = async <N extends OperationName>(
  rt: SessionRuntime,
  name: N,
  input: OperationInput<N>,
  grant: Grant,
  key?: string
): Promise<OperationOutput<N>> => {
  const table = rt.shared.operations;
  const op = table[name] as Operation<unknown, unknown> | undefined;
  if (op === undefined || !Object.hasOwn(table, name)) {
    throw new RoostError("invalid_request", `Unknown operation "${name}".`);
  }
  checkGrant(rt.shared, name, op.scope, grant, op.agent);
  const parsed = op.input().safeParse(input);
  if (!parsed.success) throw fromErrorBody(issuesToErrorBody(parsed.error));
  const checked = (
    op.agent === "turn"
      ? asGrantedAgent(grant, parsed.data as { agent?: string })
      : parsed.data
  ) as OperationInput<N>;
  const idem = key === undefined ? undefined : await bindKey(op, checked, key);
  try {
    return (await op.handle(rt, checked, idem, grant)) as OperationOutput<N>;
  } catch (error) {
    throw await explainFailure(rt.shared, name, error);
  }
};
