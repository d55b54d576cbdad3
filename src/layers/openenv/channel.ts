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
import type { Environment } from "../../environment/define-environment";
import { resolveTask } from "../../environment/task";
import { RoostError } from "../../errors";
import type { AppEnv } from "../../http/env";
import { type StartedSession, startSession } from "../../http/gateway";
import { signingKeys } from "../../http/secrets";
import { sessionCredential } from "../../http/session-credential";
import type { JsonObject } from "../../json";
import {
  ActionSchema,
  OpenEnvCallToolSchema,
  type OpenEnvFrame,
  OpenEnvListToolsSchema,
  OpenEnvMessageActionSchema,
  type OpenEnvResetData,
  type OpenEnvState,
  type SessionStatus
} from "../../protocol";
import type {
  OperationInput,
  OperationName,
  OperationOutput
} from "../../session/operations";
import { dispatchMcp } from "../mcp/dispatch";
import { requestMeta } from "../mcp/revision";
import { sessionTarget } from "../mcp/target";
import {
  type Frame,
  frameText,
  mcpRequest,
  parseFrame,
  Refused,
  resetTask,
  validated
} from "./frames";
import {
  callToolObservation,
  errorFrame,
  observationFrame,
  openEnvTools,
  stepMetadata
} from "./translate";

export interface ChannelOptions {
  environment: Environment;
  /** Re-attach to this session instead of making one per socket. */
  session?: StartedSession;
  /** The session outlives the socket (re-attached sockets always keep theirs). */
  keep: boolean;
  /** Refuse: answer the first frame with this error, then close. */
  refusal?: {
    code: "SESSION_ERROR" | "FACTORY_ERROR";
    message: string;
    closeCode: number;
  };
}

export class OpenEnvChannel {
  readonly #c: Context<AppEnv>;
  /** Null for one HTTP request (http-routes.ts): its answer is returned, not sent. */
  readonly #socket: WebSocket | null;
  readonly #options: ChannelOptions;
  #session: StartedSession | undefined;
  #episodeId: string | null = null;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #callPrefix = crypto.randomUUID().slice(0, 8);
  #calls = 0;

  constructor(
    c: Context<AppEnv>,
    socket: WebSocket | null,
    options: ChannelOptions
  ) {
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
    const frame = parseFrame(await frameText(data), this.#c.get("limits"));
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

  /**
   * One frame's answer, for OpenEnv's HTTP routes: a refusal comes back as
   * its error frame, and a RoostError is thrown on to the API's own answer.
   */
  async request(frame: OpenEnvFrame): Promise<Frame | undefined> {
    try {
      return await this.#answer(frame);
    } catch (error) {
      if (error instanceof Refused) return error.frame;
      throw error;
    }
  }

  /** The session the frames ran on, once there is one. */
  get session(): StartedSession | undefined {
    return this.#session;
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
    const named = resetTask(env, data);
    if (this.#session === undefined) {
      await this.#create(
        named === undefined ? resolveTask(env, {}) : named.task
      );
    }
    const reset = await this.#op("reset", named?.request ?? {});
    const status = await this.#status();
    this.#episodeId =
      data.episode_id ?? `${this.#session!.sessionId}:${status.episode}`;
    // No step was scored yet: a reset's metadata has no reward_components.
    return observationFrame(
      { messages: reset.observations as unknown as JsonObject[] },
      0,
      false,
      {
        session_id: this.#session!.sessionId,
        episode: status.episode,
        episode_id: this.#episodeId
      }
    );
  }

  async #step(data: JsonObject): Promise<Frame> {
    if (data.type === "list_tools") {
      validated(OpenEnvListToolsSchema(), data);
      const status = await this.#status();
      const { tools } = await this.#op("tools", {});
      return observationFrame(
        { tools: openEnvTools(tools) },
        null,
        status.done || status.truncated
      );
    }
    if (data.type === "call_tool") {
      const call = validated(OpenEnvCallToolSchema(), data);
      // In order within a socket, and never reused by a re-attached one:
      // no status round trip on the hot path just to number a call.
      const id = `openenv_${this.#callPrefix}_${++this.#calls}`;
      const step = await this.#op("step", {
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
      });
      return observationFrame(
        callToolObservation(call.tool_name, id, step),
        step.reward,
        step.done || step.truncated,
        stepMetadata(step)
      );
    }
    // Anything else is Roost's own step, an assistant message with tool_calls.
    validated(OpenEnvMessageActionSchema(), data);
    const action = validated(ActionSchema(), data);
    const step = await this.#op("step", { action });
    return observationFrame(
      {
        messages: step.observations as unknown as JsonObject[],
        truncated: step.truncated
      },
      step.reward,
      step.done || step.truncated,
      stepMetadata(step)
    );
  }

  async #state(): Promise<OpenEnvState> {
    const session = this.#requireSession();
    const status = await this.#status();
    const { state: values, next_cursor } = await this.#op("readState", {});
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
      values,
      ...(next_cursor === undefined ? {} : { values_next_cursor: next_cursor })
    };
  }

  async #mcp(data: JsonObject): Promise<JsonObject> {
    const request = mcpRequest(data);
    if (!request.ok) return request.answer;
    const { session } = this.#requireSession();
    const target = sessionTarget(this.#c.get("registry"), session);
    // A frame carries no stream back: nothing is sent before the answer.
    return (await dispatchMcp(request.message, target, {
      revision: { modern: false, version: "2025-03-26" },
      headers: new Headers(),
      meta: requestMeta(request.message),
      send: undefined,
      keys: () => signingKeys(this.#c.env)
    })) as unknown as JsonObject;
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

  #requireSession(): StartedSession {
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
    return this.#op("status", {});
  }

  #op<N extends OperationName>(
    name: N,
    input: OperationInput<N>
  ): Promise<OperationOutput<N>> {
    return this.#requireSession().session.op(name, input);
  }

  /** Deletes the socket's own session unless it is kept. Best effort: the idle TTL is the backstop. */
  async #dispose(): Promise<void> {
    const session = this.#session;
    if (session === undefined || this.#keeps()) return;
    this.#session = undefined;
    await session.session.op("destroy", {}).catch(() => undefined);
  }

  #send(frame: Frame): void {
    try {
      this.#socket?.send(JSON.stringify(frame));
    } catch {
      // The client is gone; `gone()` cleans up.
    }
  }

  #close(code: number, reason: string): void {
    try {
      this.#socket?.close(code, reason.slice(0, 120));
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
