/**
 * @module OpenEnv's frames as session operations: what a `reset`, `step`,
 * `state` or `mcp` frame asks of the session, and the one frame that
 * answers it (OpenEnv's client matches replies by order alone). Where the
 * operations run is the host's: the session's own object for a socket
 * (object-socket.ts), the worker for OpenEnv's HTTP routes (worker-host.ts).
 */

import { servedAgent, toolsOfAgent } from "../../environment/agents";
import type { Environment } from "../../environment/define-environment";
import { resolveTask } from "../../environment/task";
import { sessionCredential } from "../../http/session-credential";
import type { JsonObject } from "../../json";
import {
  ActionSchema,
  type JsonRpcMessage,
  type Limits,
  OpenEnvCallToolSchema,
  type OpenEnvFrame,
  OpenEnvListToolsSchema,
  OpenEnvMessageActionSchema,
  type OpenEnvResetData,
  type OpenEnvState,
  type SessionStatus
} from "../../protocol";
import { viewOf } from "../../protocol/agents";
import type {
  OperationInput,
  OperationName,
  OperationOutput
} from "../../session/operations";
import {
  type Frame,
  mcpRequest,
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

/** The session a channel's frames run on. */
export interface HostSession {
  readonly sessionId: string;
  /** Its token for the state frame: the one it was re-attached with, or the creator's. */
  token(): Promise<string>;
  op<N extends OperationName>(
    name: N,
    input: OperationInput<N>
  ): Promise<OperationOutput<N>>;
  /** One MCP request, answered as the session's MCP endpoint answers it. */
  mcp(message: JsonRpcMessage & { id: string | number }): Promise<JsonObject>;
}

/** Where a channel runs. */
export interface ChannelHost {
  readonly environment: Environment;
  readonly limits: Limits;
  /** The origin the client connected to: the re-attach URL is on it. */
  readonly origin: string;
  /** The session, once made or when re-attached. */
  session(): HostSession | undefined;
  /** Makes the session of `task`. */
  create(task: unknown): Promise<HostSession>;
}

/** What a channel remembers between frames (a socket keeps it across hibernation). */
export interface ChannelState {
  /** The session outlives the socket (re-attached sockets always keep theirs). */
  keep: boolean;
  episodeId: string | null;
  /**
   * The agent this client plays in a multi-agent environment (reset's
   * `agent`, else the one the environment leaves to clients): its view,
   * its reward, its turns. Absent, a one-agent environment, or one client
   * playing whoever's turn it is.
   */
  agent?: string;
}

/** A call id's prefix: fresh per channel (and per wake), so ids never repeat within a socket. */
const callPrefix = () => crypto.randomUUID().slice(0, 8);

export class OpenEnvChannel {
  readonly #host: ChannelHost;
  readonly state: ChannelState;
  readonly #prefix = callPrefix();
  #calls = 0;

  constructor(host: ChannelHost, state: ChannelState) {
    this.#host = host;
    this.state = state;
  }

  /** Makes the session now if the environment has a default task (as OpenEnv makes one on connect). */
  async open(): Promise<void> {
    if (this.#host.session() !== undefined) return;
    let task: unknown;
    try {
      task = resolveTask(this.#host.environment, {});
    } catch {
      return; // made at the first reset, from the task it names
    }
    await this.#host.create(task);
  }

  /** One frame's answer; a refusal comes back as its error frame, and a RoostError is thrown. */
  async request(
    frame: Exclude<OpenEnvFrame, { type: "close" }>
  ): Promise<Frame> {
    try {
      return await this.#answer(frame);
    } catch (error) {
      if (error instanceof Refused) return error.frame;
      throw error;
    }
  }

  async #answer(frame: Exclude<OpenEnvFrame, { type: "close" }>) {
    switch (frame.type) {
      case "reset":
        return this.#reset(frame.data);
      case "step":
        return this.#step(frame.data);
      case "state":
        return { type: "state", data: await this.#state() };
      case "mcp":
        return { type: "mcp", data: await this.#mcp(frame.data) };
    }
  }

  async #reset(data: OpenEnvResetData): Promise<Frame> {
    const env = this.#host.environment;
    const named = resetTask(env, data);
    // Checked before a session is made for it.
    const agent = servedAgent(env, data.agent);
    const session =
      this.#host.session() ??
      (await this.#host.create(
        named === undefined ? resolveTask(env, {}) : named.task
      ));
    const reset = await session.op("reset", named?.request ?? {});
    const status = await session.op("status", {});
    if (agent === undefined) delete this.state.agent;
    else this.state.agent = agent;
    this.state.episodeId =
      data.episode_id ?? `${session.sessionId}:${status.episode}`;
    // No step was scored yet: a reset's metadata has no reward_components.
    const observations =
      agent === undefined
        ? reset.observations
        : viewOf(reset.observations, agent);
    return observationFrame(
      { messages: observations as unknown as JsonObject[] },
      0,
      false,
      {
        session_id: session.sessionId,
        episode: status.episode,
        episode_id: this.state.episodeId
      }
    );
  }

  async #step(data: JsonObject): Promise<Frame> {
    const session = this.#requireSession();
    if (data.type === "list_tools") {
      validated(OpenEnvListToolsSchema(), data);
      const status = await session.op("status", {});
      const { tools } = await session.op("tools", {});
      const own = toolsOfAgent(this.#host.environment, this.state.agent, tools);
      return observationFrame(
        { tools: openEnvTools(own) },
        null,
        status.done || status.truncated
      );
    }
    if (data.type === "call_tool") {
      const call = validated(OpenEnvCallToolSchema(), data);
      // In order within a channel, and never reused by another: no status
      // round trip on the hot path just to number a call.
      const id = `openenv_${this.#prefix}_${++this.#calls}`;
      const step = await session.op("step", {
        ...this.#agent(),
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
        this.#reward(step),
        step.done || step.truncated,
        stepMetadata(step)
      );
    }
    // Anything else is Roost's own step, an assistant message with tool_calls.
    validated(OpenEnvMessageActionSchema(), data);
    const action = validated(ActionSchema(), data);
    const step = await session.op("step", { ...this.#agent(), action });
    return observationFrame(
      {
        messages: step.observations as unknown as JsonObject[],
        truncated: step.truncated
      },
      this.#reward(step),
      step.done || step.truncated,
      stepMetadata(step)
    );
  }

  #agent(): { agent?: string } {
    return this.state.agent === undefined ? {} : { agent: this.state.agent };
  }

  /** The acting agent's reward in a multi-agent environment (as Aviary's). */
  #reward(step: {
    reward: number;
    agent?: string;
    rewards?: Record<string, number>;
  }) {
    return step.agent === undefined ? step.reward : step.rewards![step.agent]!;
  }

  async #state(): Promise<OpenEnvState> {
    const session = this.#requireSession();
    const status: SessionStatus = await session.op("status", {});
    const { state: values, next_cursor } = await session.op("readState", {});
    const token = await session.token();
    return {
      episode_id:
        this.state.episodeId ??
        (status.episode > 0 ? `${session.sessionId}:${status.episode}` : null),
      step_count: status.steps,
      session_id: session.sessionId,
      session_token: token,
      reattach_base_url: reattachBase(
        this.#host.origin,
        status.environment,
        session.sessionId,
        token
      ),
      environment: status.environment,
      episode: status.episode,
      done: status.done,
      truncated: status.truncated,
      kept: this.state.keep,
      values,
      ...(next_cursor === undefined ? {} : { values_next_cursor: next_cursor })
    };
  }

  async #mcp(data: JsonObject): Promise<JsonObject> {
    const request = mcpRequest(data);
    if (!request.ok) return request.answer;
    return this.#requireSession().mcp(request.message);
  }

  #requireSession(): HostSession {
    const session = this.#host.session();
    if (session === undefined) {
      throw new Refused(
        errorFrame(
          "EXECUTION_ERROR",
          "Reset first: this environment has no default task, so its session starts at the first reset."
        )
      );
    }
    return session;
  }
}

/** The base URL that re-attaches to a session: its credential rides in the path. */
export const reattachBase = (
  origin: string,
  environment: string,
  sessionId: string,
  token: string
): string =>
  `${origin}/v1/environments/${environment}/openenv/s/${sessionCredential(sessionId, token)}`;
