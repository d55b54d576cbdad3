/**
 * @module One OpenEnv socket: its frames, in order, become session
 * operations; each answer is exactly one frame, since OpenEnv's client
 * matches replies by order alone.
 *
 * The socket is accepted here in the worker rather than forwarded to the
 * session's object: its frames are translated into the same `op` calls
 * every transport makes, MCP frames reach the MCP dispatch (which lives
 * above the session layer), and the object stays free to be evicted
 * between frames.
 */

import type { Context } from "hono";
import type { z } from "zod";
import type { Environment } from "../../environment/define-environment";
import { resolveTask } from "../../environment/task";
import { RoostError } from "../../errors";
import type { JsonObject, JsonValue } from "../../json";
import {
  ActionSchema,
  JSONRPC_ERRORS,
  JsonRpcMessageSchema,
  OPENENV_FRAME_TYPES,
  OpenEnvCallToolSchema,
  type OpenEnvFrame,
  OpenEnvFrameSchema,
  OpenEnvListToolsSchema,
  OpenEnvMessageActionSchema,
  type OpenEnvResetData,
  type OpenEnvState,
  type ResetResponse,
  type SessionStatus,
  type StepResponse
} from "../../protocol";
import { checkJsonLimits } from "../../protocol/json-value";
import type { RpcResult } from "../../session/rpc";
import type { AppEnv } from "../env";
import { dispatchMcp } from "../mcp/dispatch";
import { sessionTarget } from "../mcp/target";
import { startSession } from "../routes/sessions";
import { sessionCredential } from "../session-credential";
import { callSession, type SessionStub } from "../stub";
import {
  callToolObservation,
  errorFrame,
  observationFrame,
  openEnvTools,
  validationErrors
} from "./translate";

export interface SessionRef {
  sessionId: string;
  token: string;
  durableId: DurableObjectId;
}

export interface ChannelOptions {
  environment: Environment;
  /** Re-attach to this session instead of making one per socket. */
  session?: SessionRef;
  /** The session outlives the socket (re-attached sockets always keep theirs). */
  keep: boolean;
  /** Refuse: answer the first frame with this error, then close. */
  refusal?: {
    code: "SESSION_ERROR" | "FACTORY_ERROR";
    message: string;
    closeCode: number;
  };
}

/** Every answer: `{type, data}`, one per request. */
type Frame = { type: string; data?: unknown };

class Refused extends Error {
  constructor(readonly frame: Frame) {
    super("refused");
  }
}

export class OpenEnvChannel {
  readonly #c: Context<AppEnv>;
  readonly #socket: WebSocket;
  readonly #options: ChannelOptions;
  #session: SessionRef | undefined;
  #episodeId: string | null = null;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(c: Context<AppEnv>, socket: WebSocket, options: ChannelOptions) {
    this.#c = c;
    this.#socket = socket;
    this.#options = options;
    this.#session = options.session;
  }

  /** Makes the socket's session now, as OpenEnv does on connect (if the environment has a default task). */
  async open(): Promise<void> {
    if (this.#session !== undefined || this.#options.refusal) return;
    const env = this.#options.environment;
    let task: unknown;
    try {
      task = resolveTask(env, {});
    } catch {
      return; // made at the first reset, from the task it names
    }
    await this.#create(task);
  }

  /** Frames run one at a time, in the order they came. */
  receive(data: string | ArrayBuffer | Blob): void {
    this.#queue = this.#queue
      .then(() => this.#handle(data))
      .catch((error: unknown) => {
        // A bug, not a refusal: said as little about as a 500 says.
        console.error("Roost: an OpenEnv frame failed", error);
        this.#send(errorFrame("EXECUTION_ERROR", "Internal error."));
      });
  }

  /** The client went away without `close`: its session goes too, unless kept. */
  gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#c.executionCtx.waitUntil(this.#queue.then(() => this.#dispose()));
  }

  async #handle(data: string | ArrayBuffer | Blob): Promise<void> {
    if (this.#closed) return;
    const refusal = this.#options.refusal;
    if (refusal) {
      this.#closed = true;
      this.#send(errorFrame(refusal.code, refusal.message));
      this.#close(refusal.closeCode, refusal.message);
      return;
    }
    // OpenEnv's client sends text; json.loads would take bytes too. A
    // worker's socket hands binary frames over as Blobs.
    const frame = this.#parse(
      typeof data === "string"
        ? data
        : data instanceof Blob
          ? await data.text()
          : new TextDecoder().decode(data)
    );
    if (!("type" in frame) || frame.type === "error") {
      this.#send(frame);
      return;
    }
    try {
      const answer = await this.#answer(frame as OpenEnvFrame);
      if (answer !== undefined) this.#send(answer);
    } catch (error) {
      if (error instanceof Refused) return this.#send(error.frame);
      if (!(error instanceof RoostError)) throw error;
      this.#send(
        errorFrame("EXECUTION_ERROR", error.message, {
          roost_code: error.code
        })
      );
    }
  }

  /** A frame, or the error frame that answers it. Bad frames never close the socket. */
  #parse(text: string): OpenEnvFrame | Frame {
    const limits = this.#c.get("limits");
    if (text.length > limits.wsFrameBytes) {
      return errorFrame(
        "VALIDATION_ERROR",
        `The frame is over ${limits.wsFrameBytes} bytes.`
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return errorFrame(
        "INVALID_JSON",
        `Invalid JSON: ${error instanceof Error ? error.message : "not JSON"}`
      );
    }
    const tooDeep = checkJsonLimits(raw, limits);
    if (tooDeep) return errorFrame("VALIDATION_ERROR", tooDeep.message);
    const type =
      typeof raw === "object" && raw !== null && !Array.isArray(raw)
        ? (raw as { type?: unknown }).type
        : undefined;
    if (typeof type !== "string" || !OPENENV_FRAME_TYPES.includes(type)) {
      return errorFrame(
        "UNKNOWN_TYPE",
        `Unknown message type: ${typeof type === "string" ? type : ""}`
      );
    }
    const parsed = OpenEnvFrameSchema.safeParse(raw);
    return parsed.success
      ? parsed.data
      : errorFrame("VALIDATION_ERROR", "Invalid message", {
          errors: validationErrors(parsed.error)
        });
  }

  async #answer(frame: OpenEnvFrame): Promise<Frame | undefined> {
    switch (frame.type) {
      case "reset":
        return this.#reset(frame.data);
      case "step":
        return this.#step(frame.data);
      case "state":
        return { type: "state", data: await this.#state() };
      case "mcp":
        return { type: "mcp", data: await this.#mcp(frame.data) };
      case "close":
        this.#closed = true;
        await this.#dispose();
        this.#close(1000, "closed");
        return undefined;
    }
  }

  async #reset(data: OpenEnvResetData): Promise<Frame> {
    const env = this.#options.environment;
    const named =
      data.task !== undefined || data.task_index !== undefined
        ? resolveTask(env, data)
        : // A seed picks a dataset task reproducibly; Roost environments
          // are otherwise deterministic given their task.
          typeof data.seed === "number" && env.dataset && env.dataset.size > 0
          ? resolveTask(env, {
              task_index:
                ((data.seed % env.dataset.size) + env.dataset.size) %
                env.dataset.size
            })
          : undefined;
    if (this.#session === undefined) {
      await this.#create(named === undefined ? resolveTask(env, {}) : named);
    }
    const reset = await this.#call<ResetResponse>(
      (s) =>
        s.op(
          "reset",
          named === undefined ? {} : { task: named as JsonValue }
        ) as never,
      false
    );
    const status = await this.#status();
    this.#episodeId =
      data.episode_id ?? `${this.#session!.sessionId}:${status.episode}`;
    return observationFrame(
      {
        messages: reset.observations as unknown as JsonObject[],
        metadata: {
          session_id: this.#session!.sessionId,
          episode: status.episode,
          episode_id: this.#episodeId
        }
      },
      0,
      false
    );
  }

  async #step(data: JsonObject): Promise<Frame> {
    if (data.type === "list_tools") {
      this.#validate(OpenEnvListToolsSchema, data);
      const status = await this.#status();
      return observationFrame(
        { tools: openEnvTools(this.#options.environment) },
        null,
        status.done || status.truncated
      );
    }
    if (data.type === "call_tool") {
      const call = this.#validate(OpenEnvCallToolSchema, data);
      const status = await this.#status();
      const id = `openenv_${status.episode}_${status.steps + 1}`;
      const step = await this.#call<StepResponse>(
        (s) =>
          s.op("step", {
            action: {
              role: "assistant",
              tool_calls: [
                {
                  id,
                  type: "function",
                  function: { name: call.tool_name, arguments: call.arguments }
                }
              ]
            }
          }) as never,
        false
      );
      return observationFrame(
        callToolObservation(call.tool_name, id, step),
        step.reward,
        step.done || step.truncated
      );
    }
    // Anything else is Roost's own step, an assistant message with tool_calls.
    this.#validate(OpenEnvMessageActionSchema, data);
    const action = this.#validate(ActionSchema, data);
    const step = await this.#call<StepResponse>(
      (s) => s.op("step", { action }) as never,
      false
    );
    return observationFrame(
      {
        messages: step.observations as unknown as JsonObject[],
        truncated: step.truncated
      },
      step.reward,
      step.done || step.truncated
    );
  }

  async #state(): Promise<OpenEnvState> {
    const session = this.#requireSession();
    const status = await this.#status();
    const { state: values } = await this.#call<{ state: JsonObject }>(
      (s) => s.op("readState", {}) as never,
      true
    );
    const origin = new URL(this.#c.req.url).origin;
    return {
      episode_id:
        this.#episodeId ??
        (status.episode > 0 ? `${session.sessionId}:${status.episode}` : null),
      step_count: status.steps,
      session_id: session.sessionId,
      session_token: session.token,
      reattach_base_url: `${origin}/v1/environments/${status.environment}/openenv/s/${sessionCredential(session.sessionId, session.token)}`,
      environment: status.environment,
      episode: status.episode,
      done: status.done,
      truncated: status.truncated,
      kept: this.#keeps(),
      values
    };
  }

  async #mcp(data: JsonObject): Promise<JsonObject> {
    const message = JsonRpcMessageSchema.safeParse(data);
    const id =
      typeof data.id === "string" || typeof data.id === "number"
        ? data.id
        : null;
    if (!message.success || message.data.id === undefined) {
      return {
        jsonrpc: "2.0",
        id,
        error: {
          code: JSONRPC_ERRORS.invalidRequest,
          message:
            "Invalid request: one JSON-RPC 2.0 request with an id is expected."
        }
      };
    }
    const session = this.#requireSession();
    const target = sessionTarget(this.#c.get("registry"), (call, options) =>
      callSession(this.#c.env.SESSIONS, session.durableId, call, options)
    );
    return (await dispatchMcp(
      { ...message.data, id: message.data.id },
      target
    )) as unknown as JsonObject;
  }

  #validate<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
    const parsed = schema.safeParse(data);
    if (parsed.success) return parsed.data;
    throw new Refused(
      errorFrame("VALIDATION_ERROR", "Invalid message", {
        errors: validationErrors(parsed.error)
      })
    );
  }

  #keeps(): boolean {
    return this.#options.keep || this.#options.session !== undefined;
  }

  async #create(task: unknown): Promise<void> {
    const started = await startSession(this.#c, {
      environment: this.#options.environment.name,
      task
    });
    this.#session = started;
  }

  #requireSession(): SessionRef {
    if (this.#session === undefined) {
      throw new Refused(
        errorFrame(
          "EXECUTION_ERROR",
          "Reset first: this environment has no default task, so its session starts at the first reset."
        )
      );
    }
    return this.#session;
  }

  #status(): Promise<SessionStatus> {
    return this.#call<SessionStatus>((s) => s.op("status", {}) as never, true);
  }

  #call<T>(
    call: (stub: SessionStub) => Promise<RpcResult<T>>,
    retry: boolean
  ): Promise<T> {
    const session = this.#requireSession();
    return callSession(this.#c.env.SESSIONS, session.durableId, call, {
      retry
    });
  }

  /** Deletes the socket's own session unless it is kept. Best effort: the idle TTL is the backstop. */
  async #dispose(): Promise<void> {
    const session = this.#session;
    if (session === undefined || this.#keeps()) return;
    this.#session = undefined;
    await callSession(
      this.#c.env.SESSIONS,
      session.durableId,
      (s) => s.op("destroy", {}) as never,
      { retry: true }
    ).catch(() => undefined);
  }

  #send(frame: Frame): void {
    try {
      this.#socket.send(JSON.stringify(frame));
    } catch {
      // The client is gone; `gone()` cleans up.
    }
  }

  #close(code: number, reason: string): void {
    try {
      this.#socket.close(code, reason.slice(0, 120));
    } catch {
      // Already closed.
    }
  }
}

/** Accepts an OpenEnv socket and wires it to a channel. */
export const openChannel = async (
  c: Context<AppEnv>,
  options: ChannelOptions
): Promise<Response> => {
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  let channel = new OpenEnvChannel(c, server, options);
  try {
    await channel.open();
  } catch (error) {
    // OpenEnv's FACTORY_ERROR: the first frame learns why, then the socket
    // closes. Nothing can arrive before the 101 below, so no frame is lost.
    channel = new OpenEnvChannel(c, server, {
      ...options,
      refusal: {
        code: "FACTORY_ERROR",
        message:
          error instanceof Error
            ? error.message
            : "The session could not start.",
        closeCode: 1011
      }
    });
  }
  server.addEventListener("message", (event) => channel.receive(event.data));
  server.addEventListener("close", () => channel.gone());
  server.addEventListener("error", () => channel.gone());
  return new Response(null, { status: 101, webSocket: client });
};
