/** @module `createClient`: the HTTP API as typed methods, responses checked against the protocol schemas. */

import {
  type CreateSessionRequest,
  CreateSessionResponseSchema,
  type EnvironmentInfo,
  EnvironmentsResponseSchema,
  HealthResponseSchema
} from "../protocol";
import {
  type TaskSampleRequest,
  type TaskSampleResponse,
  TaskSampleResponseSchema,
  TaskStatsDeleteResponseSchema,
  type TaskStatsResponse,
  TaskStatsResponseSchema
} from "../protocol/http-task-stats";
import {
  createTransport,
  type Transport,
  type TransportOptions
} from "./request";
import { RoostSession } from "./session-client";

export interface ClientOptions extends TransportOptions {
  /** Sent when creating sessions (needed when the server sets ROOST_API_KEYS). */
  apiKey?: string;
}

/**
 * The entry point of the client. Errors are thrown as `RoostClientError`.
 * Reads and mutations are retried after network errors and 503s (mutations
 * with an Idempotency-Key, so a retry never runs twice); creating a session
 * is not retried.
 *
 * @example
 * const client = createClient({ baseUrl: "http://127.0.0.1:8787" });
 * const session = await client.createSession({ environment: "counter" });
 * await session.reset();
 */
export const createClient = (options: ClientOptions): RoostClient =>
  new RoostClient(options);

export class RoostClient {
  readonly baseUrl: string;
  readonly #send: Transport;
  readonly #apiKey: string | undefined;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#send = createTransport(options);
    this.#apiKey = options.apiKey;
  }

  health() {
    return this.#send({
      method: "GET",
      path: "/health",
      schema: HealthResponseSchema(),
      retry: "idempotent"
    });
  }

  async environments(): Promise<EnvironmentInfo[]> {
    const body = await this.#send({
      method: "GET",
      path: "/v1/environments",
      schema: EnvironmentsResponseSchema(),
      retry: "idempotent"
    });
    return body.environments;
  }

  async createSession(request: CreateSessionRequest): Promise<RoostSession> {
    const created = await this.#send({
      method: "POST",
      path: "/v1/sessions",
      body: request,
      ...(this.#apiKey ? { credential: this.#apiKey } : {}),
      schema: CreateSessionResponseSchema(),
      retry: "once"
    });
    return new RoostSession(
      this.#send,
      created.session_id,
      created.token,
      created.ws_url,
      this.#apiKey
    );
  }

  /**
   * A page of the server's task statistics of `environment`
   * (`GET /v1/environments/:name/task-stats`); `next_cursor` continues.
   */
  taskStats(
    environment: string,
    query: {
      split?: string;
      group_size?: number;
      cursor?: string;
      limit?: number;
    } = {}
  ): Promise<TaskStatsResponse> {
    return this.#send({
      method: "GET",
      path: `/v1/environments/${encodeURIComponent(environment)}/task-stats`,
      query,
      ...this.#keyed(),
      schema: TaskStatsResponseSchema(),
      retry: "idempotent"
    });
  }

  /** Forgets the server's task statistics of `environment` (one split's, or all). */
  resetTaskStats(environment: string, split?: string) {
    return this.#send({
      method: "DELETE",
      path: `/v1/environments/${encodeURIComponent(environment)}/task-stats`,
      query: { split },
      ...this.#keyed(),
      schema: TaskStatsDeleteResponseSchema(),
      // Doing it twice is doing it once.
      retry: "idempotent"
    });
  }

  /** Dataset indexes drawn by the curriculum from the server's statistics. */
  sampleTasks(
    environment: string,
    request: TaskSampleRequest
  ): Promise<TaskSampleResponse> {
    return this.#send({
      method: "POST",
      path: `/v1/environments/${encodeURIComponent(environment)}/task-stats/sample`,
      body: request,
      ...this.#keyed(),
      schema: TaskSampleResponseSchema(),
      // It reads and draws; it writes nothing.
      retry: "idempotent"
    });
  }

  #keyed() {
    return this.#apiKey ? { credential: this.#apiKey } : {};
  }

  /** A handle on an existing session; `credential` is its token or an API key. */
  session(id: string, credential: string): RoostSession {
    return new RoostSession(
      this.#send,
      id,
      credential,
      undefined,
      this.#apiKey
    );
  }
}
