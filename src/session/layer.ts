/**
 * @module What a layer may add to a session: operations, requests the
 * object answers itself, alarm timers and commit hooks. The
 * session core knows none of the layers; a worker's class is built from
 * the ones it chose (session-object.ts), so a layer it did not choose is
 * neither bundled nor run.
 */

import type { Grant, Scope } from "../protocol/scopes";
import type { SessionRow } from "../storage/session-row";
import { CORE_ALARMS } from "./alarm";
import { CORE_OPERATIONS } from "./operations";
import type { Operation } from "./operations/define";
import type { SessionRuntime } from "./runtime";
import type { TimerKind } from "./schedule";
import type { SessionShared } from "./shared";

/**
 * An operation of any input and output, as a table holds it: the table's
 * types come from each operation's own declaration (operations/index.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: a table holds operations of every input type; each is typed where it is declared.
export type AnyOperation = Operation<any, unknown>;

/** Operations by name, as the table and the layers declare them. */
export type OperationTable = Readonly<Record<string, AnyOperation>>;

/** What an alarm timer's handler gets. */
export interface AlarmContext {
  shared: SessionShared;
  runtime: SessionRuntime;
  row: SessionRow;
  now: number;
  /** Sockets still open: someone watching keeps the session alive. */
  openSockets: number;
}

/** "deleted" when the handler deleted the session: nothing else may run. */
export type AlarmHandler = (a: AlarmContext) => Promise<"deleted" | undefined>;

/**
 * A request the object answers itself (a stream), forwarded by the worker
 * after it checked the credentials, on the object's internal `path`; the
 * object admits it with `scope`, as an operation's (a chat's stream shows
 * the session: observe; an MCP client's call runs a tool: act).
 */
export interface ObjectRequest {
  /** What a refusal calls it: the operation it is, or what it shows. */
  readonly name: string;
  readonly scope: Scope;
  answer(
    runtime: SessionRuntime,
    url: URL,
    grant: Grant,
    request: Request
  ): Promise<Response>;
}

/** What a layer's `attach` gets, once per object, when the object starts. */
export interface SessionAttach {
  runtime: SessionRuntime;
  /** The worker's bindings, as the object got them. */
  env: unknown;
}

/** What a layer's socket handlers get: the object's runtime, state and bindings. */
export interface SocketContext {
  runtime: SessionRuntime;
  ctx: DurableObjectState;
  /** The worker's bindings, as the object got them. */
  env: unknown;
}

/**
 * A WebSocket of a layer's own protocol, accepted by the object
 * (hibernatable) and tagged with the key it is declared under, so its
 * frames find their handler again after the object was evicted. The
 * worker forwards the upgrade to the object's path `/socket/<tag>`.
 */
export interface LayerSocket {
  accept(s: SocketContext, request: Request, grant: Grant): Promise<Response>;
  message(
    s: SocketContext,
    ws: WebSocket,
    data: string | ArrayBuffer
  ): Promise<void>;
  /** The client went away (closed or errored). */
  gone(s: SocketContext, ws: WebSocket): Promise<void>;
}

export interface SessionLayer {
  /** Operations added to each session's table, reached by every transport. */
  readonly operations?: OperationTable;
  /** Requests the object answers itself, by internal path. */
  readonly objectRequests?: Readonly<Record<string, ObjectRequest>>;
  /** Sockets of the layer's own protocols, by tag. */
  readonly sockets?: Readonly<Record<string, LayerSocket>>;
  /** Handlers of the alarm timers this layer sets. */
  readonly alarms?: Readonly<Partial<Record<TimerKind, AlarmHandler>>>;
  /** Runs when an object starts: registers commit captures and observers. */
  readonly attach?: (session: SessionAttach) => void;
}

/** A class's layers merged once, for every object of it: what each object looks up. */
export interface SessionLayers {
  readonly operations: OperationTable;
  readonly alarms: Readonly<Partial<Record<TimerKind, AlarmHandler>>>;
  readonly objectRequests: Readonly<Record<string, ObjectRequest>>;
  readonly sockets: Readonly<Record<string, LayerSocket>>;
  readonly attach: readonly ((session: SessionAttach) => void)[];
}

/** The core's parts and each layer's after them, merged (a later layer's name wins). */
export const mergeLayers = (
  layers: readonly SessionLayer[] = []
): SessionLayers => ({
  operations: Object.assign(
    {},
    CORE_OPERATIONS,
    ...layers.map((layer) => layer.operations ?? {})
  ),
  alarms: Object.assign(
    {},
    CORE_ALARMS,
    ...layers.map((layer) => layer.alarms ?? {})
  ),
  objectRequests: Object.assign(
    {},
    ...layers.map((layer) => layer.objectRequests ?? {})
  ),
  sockets: Object.assign({}, ...layers.map((layer) => layer.sockets ?? {})),
  attach: layers.flatMap((layer) =>
    layer.attach === undefined ? [] : [layer.attach]
  )
});
