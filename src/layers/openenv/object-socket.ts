/**
 * @module OpenEnv's socket, held by the session's own object: accepted
 * hibernatable and tagged, its frames translated and run here, each
 * answered from the commit that ran it, with no RPC between a frame and
 * its operation. What a socket must remember across an eviction (who it
 * was admitted as, its episode id, whether it made its session) rides in
 * its attachment. The worker only admits the upgrade and forwards it
 * (socket-route.ts); the session is made by the first frame that needs
 * it, so a connect costs the object nothing.
 */

import { RoostError } from "../../errors";
import type { RoostBindings } from "../../http/env";
import type { SessionGateway } from "../../http/gateway";
import { signingKeys } from "../../http/secrets";
import { signToken } from "../../http/token";
import { CLOSE_CODES, type OpenEnvFrame } from "../../protocol";
import { type Grant, SERVER_GRANT } from "../../protocol/scopes";
import type { LayerSocket, SocketContext } from "../../session/layer";
import { dispatch } from "../../session/operations";
import type { Refusal } from "./bases";
import { type ChannelHost, type HostSession, OpenEnvChannel } from "./channel";
import { type Frame, frameText, parseFrame } from "./frames";
import { answerMcpFrame } from "./mcp-frame";
import { errorFrame } from "./translate";

/** The tag OpenEnv's sockets are accepted with, and the object path their upgrade is forwarded to. */
export const OPENENV_SOCKET = "openenv";

/** Who the worker admitted a socket as: a header it always sets itself. */
export interface Admission {
  environment: string;
  keep: boolean;
  /** Re-attached to the object's session with this token (it never makes one). */
  token?: string;
}

const ADMISSION_HEADER = "X-Roost-OpenEnv";

/** `request` carrying `admission`, replacing any client-sent value. */
export const withAdmission = (
  request: Request,
  admission: Admission
): Request => {
  const headers = new Headers(request.headers);
  headers.set(ADMISSION_HEADER, JSON.stringify(admission));
  return new Request(request, { headers });
};

interface Attachment extends Admission {
  origin: string;
  grant: Grant;
  episodeId: string | null;
  /** This socket made the object's session: it never makes another, even once that one is deleted. */
  made?: true;
  refusal?: Refusal;
  closed?: true;
}

/** What a socket holds while the object is awake: its channel, and its frames' queue. */
interface Live {
  channel: OpenEnvChannel;
  queue: Promise<void>;
}

const live = new WeakMap<WebSocket, Live>();

const attachmentOf = (ws: WebSocket): Attachment =>
  ws.deserializeAttachment() as Attachment;

const send = (ws: WebSocket, frame: Frame): void => {
  try {
    ws.send(JSON.stringify(frame));
  } catch {
    // The client is gone; its close event cleans up.
  }
};

const close = (ws: WebSocket, code: number, reason: string): void => {
  try {
    ws.close(code, reason.slice(0, 120));
  } catch {
    // Already closed.
  }
};

/** The object's own operations, as the MCP target reaches a session. */
const localGateway = (s: SocketContext, grant: Grant): SessionGateway => ({
  id: s.ctx.id,
  grant,
  op: (name, input, key) => dispatch(s.runtime, name, input, grant, key),
  // Only a streamed call forwards a request, and a frame streams nothing.
  fetch: async () => {
    throw new Error("An OpenEnv frame's MCP request forwards nothing.");
  }
});

const hostOf = (
  s: SocketContext,
  ws: WebSocket,
  state: Attachment
): ChannelHost => {
  const sessionId = s.ctx.id.toString();
  const env = s.env as RoostBindings;
  const registry = s.runtime.shared.registry;
  const session: HostSession = {
    sessionId,
    token: async () =>
      state.token ?? signToken(await signingKeys(env), sessionId),
    op: (name, input) => dispatch(s.runtime, name, input, state.grant),
    mcp: (message) =>
      answerMcpFrame(message, registry, localGateway(s, state.grant), env)
  };
  return {
    environment: registry.get(state.environment),
    limits: s.runtime.shared.options.limits,
    origin: state.origin,
    session: () =>
      state.made || state.token !== undefined ? session : undefined,
    create: async (task) => {
      // The creator holds the session's first token, which is `control`.
      await dispatch(
        s.runtime,
        "create",
        { sessionId, environment: state.environment, task },
        SERVER_GRANT
      );
      state.made = true;
      ws.serializeAttachment(state);
      return session;
    }
  };
};

const liveOf = (s: SocketContext, ws: WebSocket): Live => {
  let held = live.get(ws);
  if (held === undefined) {
    // First frame, or the first since the object woke.
    const state = attachmentOf(ws);
    held = {
      channel: new OpenEnvChannel(hostOf(s, ws, state), state),
      queue: Promise.resolve()
    };
    live.set(ws, held);
  }
  return held;
};

const refuse = (ws: WebSocket, state: Attachment, refusal: Refusal): void => {
  state.closed = true;
  ws.serializeAttachment(state);
  send(ws, errorFrame(refusal.code, refusal.message));
  close(ws, refusal.closeCode, refusal.message);
};

/** Deletes the socket's own session unless it is kept. Best effort: the idle TTL is the backstop. */
const dispose = async (s: SocketContext, state: Attachment): Promise<void> => {
  if (!state.made || state.keep || !s.runtime.exists()) return;
  await dispatch(s.runtime, "destroy", {}, SERVER_GRANT).catch(() => undefined);
};

const handle = async (
  s: SocketContext,
  ws: WebSocket,
  held: Live,
  data: string | ArrayBuffer
): Promise<void> => {
  const state = held.channel.state as Attachment;
  if (state.closed) return;
  if (state.refusal !== undefined) return refuse(ws, state, state.refusal);
  const frame = parseFrame(
    await frameText(data),
    s.runtime.shared.options.limits
  );
  if (!("type" in frame) || frame.type === "error") return send(ws, frame);
  const request = frame as OpenEnvFrame;
  if (request.type === "close") {
    state.closed = true;
    ws.serializeAttachment(state);
    await dispose(s, state);
    close(ws, 1000, "closed");
    return;
  }
  if (!state.made && state.token === undefined) {
    try {
      // As OpenEnv makes one on connect: before the first frame's answer.
      await held.channel.open();
    } catch (error) {
      // OpenEnv's FACTORY_ERROR: the first frame learns why, then the socket closes.
      return refuse(ws, state, {
        code: "FACTORY_ERROR",
        message:
          error instanceof Error
            ? error.message
            : "The session could not start.",
        closeCode: 1011
      });
    }
  }
  const episodeId = state.episodeId;
  try {
    send(ws, await held.channel.request(request));
  } catch (error) {
    if (!(error instanceof RoostError)) throw error;
    send(
      ws,
      errorFrame("EXECUTION_ERROR", error.message, { roost_code: error.code })
    );
  }
  if (state.episodeId !== episodeId) ws.serializeAttachment(state);
};

export const openEnvSocket: LayerSocket = {
  async accept(s, request, grant) {
    const admission = JSON.parse(
      request.headers.get(ADMISSION_HEADER) ?? "null"
    ) as Admission | null;
    if (admission === null)
      return Response.json(
        { error: { code: "not_found", message: "Not found." } },
        { status: 404 }
      );
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    s.ctx.acceptWebSocket(server, [OPENENV_SOCKET]);
    const state: Attachment = {
      ...admission,
      origin: new URL(request.url).origin,
      grant,
      episodeId: null
    };
    if (admission.token !== undefined) {
      // Checked here rather than by the worker: no RPC of its own at connect.
      const status = s.runtime.exists()
        ? await dispatch(s.runtime, "status", {}, grant).catch(() => undefined)
        : undefined;
      if (status?.environment !== admission.environment)
        state.refusal = {
          code: "SESSION_ERROR",
          message: `No ${admission.environment} session ${s.ctx.id.toString()} exists (any more).`,
          closeCode: CLOSE_CODES.forbidden
        };
    }
    server.serializeAttachment(state);
    return new Response(null, { status: 101, webSocket: client });
  },

  async message(s, ws, data) {
    const held = liveOf(s, ws);
    // Frames run one at a time, in the order they came.
    held.queue = held.queue
      .then(() => handle(s, ws, held, data))
      .catch((error: unknown) => {
        // A bug, not a refusal: said as little about as a 500 says.
        console.error("Roost: an OpenEnv frame failed", error);
        send(ws, errorFrame("EXECUTION_ERROR", "Internal error."));
      });
    await held.queue;
  },

  async gone(s, ws) {
    const held = live.get(ws);
    const state = held?.channel.state as Attachment | undefined;
    const current = state ?? attachmentOf(ws);
    if (current.closed) return;
    current.closed = true;
    await held?.queue;
    live.delete(ws);
    await dispose(s, current);
  }
};
