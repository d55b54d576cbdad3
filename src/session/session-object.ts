/** @module The session Durable Object: entry points only; the logic lives in SessionRuntime. */

import { DurableObject } from "cloudflare:workers";
import type { Registry } from "../environment/registry";
import type { JsonObject, JsonValue } from "../json";
import type { AssistantMessage } from "../messages/schema";
import {
  CLOSE_CODES,
  closeReplyCode,
  PING_FRAME,
  PONG_FRAME
} from "../protocol";
import type { HandlerName } from "../state/handlers";
import type { IdempotencyKey } from "../storage/idempotency";
import { createModelResolver } from "./models";
import {
  patchState,
  readFrame,
  readMessages,
  readState,
  readStore,
  type StoreQuery
} from "./operations";
import type { ResolvedOptions } from "./options";
import { settle } from "./rpc";
import { SessionRuntime } from "./runtime";
import { SocketHub } from "./sockets";

export interface StoreWrite {
  tool: string;
  name: string;
  objects: JsonObject[];
  metadata?: JsonObject;
}

/**
 * The session Durable Object. Every RPC method answers `{ ok, value | error }`
 * (see rpc.ts); the worker validated the input. The platform constructs it
 * with `(ctx, env)` only, so `createSessionClass` binds the registry and
 * options in a subclass.
 */
export class SessionObject extends DurableObject {
  readonly runtime: SessionRuntime;
  readonly sockets: SocketHub;

  constructor(
    ctx: DurableObjectState,
    env: unknown,
    registry: Registry,
    options: ResolvedOptions
  ) {
    super(ctx, env as never);
    this.runtime = new SessionRuntime(
      ctx.storage,
      registry,
      options,
      createModelResolver(env as Record<string, unknown>, options.models)
    );
    this.sockets = new SocketHub(ctx, this.runtime, options);
    // Answered by the platform, so a heartbeat never wakes a hibernating object.
    ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME)
    );
    void ctx.blockConcurrencyWhile(async () => this.runtime.recover());
  }

  /** WebSocket upgrades, forwarded by the worker after it checked the credentials. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return Response.json(
        { error: { code: "not_found", message: "Not found." } },
        { status: 404 }
      );
    }
    return this.sockets.accept(request);
  }

  override async webSocketMessage(
    ws: WebSocket,
    message: string | ArrayBuffer
  ): Promise<void> {
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
  }

  events(query: { after: number; limit: number }) {
    return settle(() => this.runtime.readEvents(query.after, query.limit));
  }

  create(init: { sessionId: string; environment: string; task: unknown }) {
    return settle(() => this.runtime.create(init));
  }
  status() {
    return settle(() => this.runtime.status());
  }
  /** A session a client opened unasked (MCP initialize): short TTL until used. */
  expectUse() {
    return settle(() => this.runtime.expectUse());
  }
  reset(body: { task?: unknown }, idem?: IdempotencyKey) {
    return settle(() => this.runtime.reset(body, idem));
  }
  step(action: AssistantMessage, idem?: IdempotencyKey) {
    return settle(() => this.runtime.step(action, idem));
  }
  callTool(
    call: { tool: string; arguments: Record<string, unknown> },
    idem?: IdempotencyKey
  ) {
    return settle(() => this.runtime.callTool(call, idem));
  }
  readStore(query: StoreQuery) {
    return settle(() => readStore(this.runtime, query));
  }
  /** The store's keys with counts, never entries: what MCP lists as resources. */
  storeKeys() {
    return settle(() => this.runtime.read((parts) => parts.environment.keys()));
  }
  addEntry(w: StoreWrite, idem?: IdempotencyKey) {
    return settle(() =>
      this.runtime.edit((p, emit) => {
        const entry = p.environment.addObjects(
          w.tool,
          w.name,
          w.objects,
          w.metadata ?? {}
        );
        // Clients see an added entry like a tool's Result, objects included.
        emit("result", {
          tool: entry.tool,
          name: entry.name,
          index: entry.index,
          objects: entry.objects,
          metadata: entry.metadata,
          display: true
        });
        return { entry };
      }, idem)
    );
  }
  replaceEntry(w: StoreWrite & { index?: number }, idem?: IdempotencyKey) {
    return settle(() =>
      this.runtime.edit(
        (p) => ({
          entry: p.environment.replace(
            w.tool,
            w.name,
            w.objects,
            w.metadata ?? {},
            w.index
          )
        }),
        idem
      )
    );
  }
  removeEntry(
    k: { tool: string; name: string; index?: number },
    idem?: IdempotencyKey
  ) {
    return settle(() =>
      this.runtime.edit((p) => {
        const before = p.environment.slice(k.tool, k.name, 0, 0).total;
        p.environment.remove(k.tool, k.name, k.index);
        return { removed: k.index === undefined ? before : 1 };
      }, idem)
    );
  }
  readState() {
    return settle(() => readState(this.runtime));
  }
  patchState(
    body: { key: string; value: JsonValue; handler?: HandlerName },
    idem?: IdempotencyKey
  ) {
    return settle(() => patchState(this.runtime, body, idem));
  }
  messages(query: { cursor?: string; limit?: number }) {
    return settle(() => readMessages(this.runtime, query));
  }
  frame() {
    return settle(() => readFrame(this.runtime));
  }
  startRun(body: { prompt: string; model?: string }, idem?: IdempotencyKey) {
    return settle(() => this.runtime.startRun(body, idem));
  }
  readRun(runId: string, waitSeconds = 0) {
    return settle(() => this.runtime.waitRun(runId, waitSeconds * 1000));
  }
  cancelRun(runId: string) {
    return settle(() => this.runtime.cancelRun(runId));
  }
  destroy() {
    return settle(async () => {
      await this.runtime.destroy();
      this.sockets.closeAll(
        CLOSE_CODES.session_gone,
        "The session was deleted."
      );
    });
  }

  override async alarm(): Promise<void> {
    await this.runtime.alarm(this.ctx.getWebSockets().length);
  }
}

/** What a worker exports as `Session`: constructed by the platform with `(ctx, env)`. */
export type SessionClass = new (
  ctx: DurableObjectState,
  env: unknown
) => SessionObject;

/** Binds a registry and options into the class the platform constructs. */
export const createSessionClass = (
  registry: Registry,
  options: ResolvedOptions
): SessionClass =>
  class Session extends SessionObject {
    constructor(ctx: DurableObjectState, env: unknown) {
      super(ctx, env, registry, options);
    }
  };
