/** @module The session Durable Object: entry points only. The session's logic is its operations (operations/), which run against its SessionRuntime. */

import { DurableObject } from "cloudflare:workers";
import type { Registry } from "../environment/registry";
import { type RoostError, toErrorBody } from "../errors";
import { closeReplyCode, PING_FRAME, PONG_FRAME } from "../protocol";
import type { Grant } from "../protocol/scopes";
import { RowMeter } from "../storage/row-meter";
import { grantOf } from "./grant-header";
import { loaderIsolates } from "./isolates";
import {
  type LayerSocket,
  mergeLayers,
  type SessionLayer,
  type SessionLayers,
  type SocketContext
} from "./layer";
import { createModelResolver } from "./models";
import {
  dispatch,
  type OperationInput,
  type OperationName
} from "./operations";
import { checkGrant } from "./operations/check-grant";
import type { ResolvedOptions } from "./options";
import { settle } from "./rpc";
import { SessionRuntime } from "./runtime";
import { SESSION_SOCKET, SocketHub } from "./sockets";

/**
 * The session Durable Object. Every RPC method answers `{ ok, value | error }`
 * (see rpc.ts); the worker validated the input. The platform constructs it
 * with `(ctx, env)` only, so `createSessionClass` binds the registry and
 * options in a subclass.
 */
export class SessionObject extends DurableObject {
  readonly runtime: SessionRuntime;
  readonly sockets: SocketHub;
  /** Counts the rows this object's storage bills, when `meterRows` says so (row-meter.ts). */
  readonly meter: RowMeter | undefined;
  /** What the layers' socket handlers get. */
  readonly #socketContext: SocketContext;
  /** Each socket's owner once looked up (`#ownerOf`). */
  readonly #owners = new WeakMap<WebSocket, LayerSocket | undefined>();

  constructor(
    ctx: DurableObjectState,
    env: unknown,
    registry: Registry,
    options: ResolvedOptions,
    fork?: ForkDriver,
    layers: SessionLayers = mergeLayers()
  ) {
    super(ctx, env as never);
    // Before anything touches storage, so waking (recover) is counted too.
    this.meter = this.meterRows(env) ? new RowMeter(ctx.storage) : undefined;
    this.runtime = new SessionRuntime(
      ctx.storage,
      registry,
      options,
      createModelResolver(env as Record<string, unknown>, options.models),
      layers
    );
    // Read here, not from the worker's route: the object's env is the same
    // deployment's, and what it emits is decided where it is emitted.
    this.runtime.shared.dev =
      (env as { ROOST_DEV?: unknown } | undefined)?.ROOST_DEV === "1";
    this.runtime.shared.isolates = loaderIsolates(env, options.loader);
    for (const attach of layers.attach) attach({ runtime: this.runtime, env });
    this.sockets = new SocketHub(
      ctx,
      this.runtime,
      options,
      // The object is its own source: its `op` is what a stub would call.
      fork &&
        ((count, origin, grant, key, step) =>
          fork(env, this, ctx.id, count, origin, grant, key, step))
    );
    this.#socketContext = { runtime: this.runtime, ctx, env };
    // Answered by the platform, so a heartbeat never wakes a hibernating object.
    ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME)
    );
    void ctx.blockConcurrencyWhile(async () => this.runtime.recover());
  }

  /**
   * Whether this object counts its rows: never, unless a subclass says so
   * (the bench worker's, from a variable). Called by the constructor, so it
   * may read nothing of the subclass but `env`.
   */
  protected meterRows(_env: unknown): boolean {
    return false;
  }

  /**
   * WebSocket upgrades and the layers' requests (a chat stream), forwarded
   * by the worker after it checked the credentials.
   */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const grant = grantOf(request);
    if (grant === undefined)
      return Response.json(
        { error: { code: "unauthorized", message: "No credentials." } },
        { status: 401 }
      );
    const requests = this.runtime.layers.objectRequests;
    const answer = Object.hasOwn(requests, url.pathname)
      ? requests[url.pathname]
      : undefined;
    if (answer !== undefined) {
      // The operations' one access check, with the request's own scope (a
      // model token sees nothing of the session).
      try {
        // An agent's credential is refused: no such request is its view.
        checkGrant(this.runtime.shared, answer.name, answer.scope, grant);
      } catch (error) {
        const refused = error as RoostError;
        return Response.json(
          { error: toErrorBody(refused) },
          { status: refused.status }
        );
      }
      return answer.answer(this.runtime, url, grant, request);
    }
    const upgrade = request.headers.get("Upgrade")?.toLowerCase();
    const layerSocket = url.pathname.startsWith("/socket/")
      ? this.#layerSocket(url.pathname.slice("/socket/".length))
      : undefined;
    if (layerSocket !== undefined && upgrade === "websocket")
      return layerSocket.accept(this.#socketContext, request, grant);
    if (upgrade !== "websocket") {
      return Response.json(
        { error: { code: "not_found", message: "Not found." } },
        { status: 404 }
      );
    }
    return this.sockets.accept(request, grant);
  }

  /** A layer's socket handler by tag (own keys only: a tag is a client-free string, still). */
  #layerSocket(tag: string): LayerSocket | undefined {
    const sockets = this.runtime.layers.sockets;
    return Object.hasOwn(sockets, tag) ? sockets[tag] : undefined;
  }

  /**
   * The layer socket `ws` belongs to, if it is not the session's own:
   * looked up once per socket while the object is awake, since a socket's
   * tags never change and reading them is a call into the runtime.
   */
  #ownerOf(ws: WebSocket): LayerSocket | undefined {
    if (this.#owners.has(ws)) return this.#owners.get(ws);
    const [tag] = this.ctx.getTags(ws);
    const owner =
      tag === undefined || tag === SESSION_SOCKET
        ? undefined
        : this.#layerSocket(tag);
    this.#owners.set(ws, owner);
    return owner;
  }

  override async webSocketMessage(
    ws: WebSocket,
    message: string | ArrayBuffer
  ): Promise<void> {
    const owner = this.#ownerOf(ws);
    if (owner !== undefined)
      return owner.message(this.#socketContext, ws, message);
    await this.sockets.message(ws, message);
  }

  override async webSocketClose(
    ws: WebSocket,
    code: number,
    reason: string
  ): Promise<void> {
    try {
      ws.close(closeReplyCode(code), reason);
    } catch {
      // already closed
    }
    await this.#ownerOf(ws)?.gone(this.#socketContext, ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.#ownerOf(ws)?.gone(this.#socketContext, ws);
  }

  /**
   * Every transport's way in: operation `name` from the table
   * (operations/), with the client's Idempotency-Key if it sent one.
   */
  op<N extends OperationName>(
    name: N,
    input: OperationInput<N>,
    grant: Grant,
    key?: string
  ) {
    return settle(() => dispatch(this.runtime, name, input, grant, key));
  }

  override async alarm(): Promise<void> {
    await this.runtime.alarm(this.ctx.getWebSockets().length);
  }
}

/**
 * Drives a fork of `source` (http/fork-driver.ts does): given to the class, so a
 * socket's `fork` request runs the same fork as the HTTP route.
 */
export type ForkDriver = (
  env: unknown,
  source: Pick<SessionObject, "op">,
  sourceId: DurableObjectId,
  count: number,
  origin: string,
  grant: Grant,
  key: string | undefined,
  step?: number
) => Promise<unknown>;

/** What a worker exports as `Session`: constructed by the platform with `(ctx, env)`. */
export type SessionClass = new (
  ctx: DurableObjectState,
  env: unknown
) => SessionObject;

/** Binds a registry, options and layers into the class the platform constructs. */
export const createSessionClass = (
  registry: Registry,
  options: ResolvedOptions,
  fork?: ForkDriver,
  layers: readonly SessionLayer[] = []
): SessionClass => {
  const merged = mergeLayers(layers);
  return class Session extends SessionObject {
    constructor(ctx: DurableObjectState, env: unknown) {
      super(ctx, env, registry, options, fork, merged);
    }
  };
};
