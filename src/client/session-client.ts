/** @module A handle on one session: every session route as a typed method. */

import type * as z from "zod";
import type { JsonObject, JsonValue } from "../json";
import {
  type ActionInput,
  DeleteSessionResponseSchema,
  ForkResponseSchema,
  ResetResponseSchema,
  RunCreatedSchema,
  type RunStatus,
  RunStatusSchema,
  type StateHandlerName,
  StatePatchResponseSchema,
  StepResponseSchema,
  StoreEntryResponseSchema,
  StoreRemoveResponseSchema,
  ToolInvocationResponseSchema
} from "../protocol";
import type { Transport } from "./request";
import { SessionReads } from "./session-reads";

/** Options of every mutating call. */
export interface MutationOptions {
  /**
   * Makes a retry (yours or the client's own, after a network error or a
   * 503) return the first response instead of running again. The client
   * sends a fresh key when none is given.
   */
  idempotencyKey?: string;
}

export interface StoreWrite {
  objects: JsonObject[];
  metadata?: JsonObject;
  /** `table`, `document` or a type of your own; sent as `payload_type`. */
  payloadType?: string;
  /** `{ displayField: dataField }` for frontends; the objects are stored whole. */
  mapping?: Record<string, string>;
}

/** A write as the wire spells it. */
const writeBody = ({ payloadType, ...rest }: StoreWrite) =>
  payloadType === undefined ? rest : { ...rest, payload_type: payloadType };

const seg = encodeURIComponent;

/**
 * Made by `client.createSession(…)` or `client.session(id, token)`.
 *
 * @example
 * const session = await client.createSession({ environment: "counter" });
 * const { observations, tools } = await session.reset();
 * await session.step({ tool_calls: [{ id: "c1", function: { name: "incr", arguments: {} } }] });
 * await session.delete();
 */
export class RoostSession extends SessionReads {
  readonly #send: Transport;
  readonly #path: string;

  constructor(
    send: Transport,
    readonly id: string,
    /** The session token, or an API key, sent as the bearer credential. */
    readonly token: string,
    /** The socket URL the server gave at creation. */
    readonly wsUrl?: string,
    /** The client's API key, sent beside the token where a key is needed (forking). */
    readonly apiKey?: string
  ) {
    const root = `/v1/sessions/${seg(id)}`;
    super((path, schema, query) =>
      send({
        method: "GET",
        path: root + path,
        ...(query ? { query } : {}),
        credential: token,
        schema,
        retry: "idempotent"
      })
    );
    this.#send = send;
    this.#path = root;
  }

  /**
   * `state` seeds the episode's state (default: the state given at
   * creation); `taskIndex` picks the task from the dataset, or from `split`.
   */
  reset(
    options: MutationOptions & {
      task?: JsonValue;
      taskIndex?: number;
      split?: string;
      state?: Record<string, JsonValue>;
    } = {}
  ) {
    const body = {
      ...(options.task === undefined ? {} : { task: options.task }),
      ...(options.taskIndex === undefined
        ? {}
        : { task_index: options.taskIndex }),
      ...(options.split === undefined ? {} : { split: options.split }),
      ...(options.state === undefined ? {} : { state: options.state })
    };
    return this.#mutate("POST", "/reset", body, ResetResponseSchema(), options);
  }

  step(action: ActionInput, options: MutationOptions = {}) {
    return this.#mutate(
      "POST",
      "/step",
      { action },
      StepResponseSchema(),
      options
    );
  }

  /** Runs one tool directly: not a step (no transcript entry, no reward). */
  call(tool: string, args: JsonObject = {}, options: MutationOptions = {}) {
    return this.#mutate(
      "POST",
      `/tools/${seg(tool)}`,
      { arguments: args },
      ToolInvocationResponseSchema(),
      options
    );
  }

  add(
    tool: string,
    name: string,
    write: StoreWrite,
    options?: MutationOptions
  ) {
    return this.#mutate(
      "POST",
      `/environment/${seg(tool)}/${seg(name)}`,
      writeBody(write),
      StoreEntryResponseSchema(),
      options
    );
  }

  /** Replaces the key's whole list with one entry, or only entry `index`. */
  replace(
    tool: string,
    name: string,
    write: StoreWrite,
    options: MutationOptions & { index?: number } = {}
  ) {
    return this.#mutate(
      "PUT",
      `/environment/${seg(tool)}/${seg(name)}${indexSegment(options.index)}`,
      writeBody(write),
      StoreEntryResponseSchema(),
      options
    );
  }

  /** Removes every entry under the key, or only entry `index`. */
  remove(
    tool: string,
    name: string,
    options: MutationOptions & { index?: number } = {}
  ) {
    return this.#mutate(
      "DELETE",
      `/environment/${seg(tool)}/${seg(name)}${indexSegment(options.index)}`,
      undefined,
      StoreRemoveResponseSchema(),
      options
    );
  }

  patchState(
    patch: { key: string; value: JsonValue; handler?: StateHandlerName },
    options?: MutationOptions
  ) {
    return this.#mutate(
      "PATCH",
      "/state",
      patch,
      StatePatchResponseSchema(),
      options
    );
  }

  /** Queues a decision-tree run; it goes on in the session object. */
  startRun(prompt: string, options: MutationOptions & { model?: string } = {}) {
    const body =
      options.model === undefined
        ? { prompt }
        : { prompt, model: options.model };
    return this.#mutate("POST", "/runs", body, RunCreatedSchema(), options);
  }

  /** Starts a run and waits, a minute at a time, until it completes, fails or is cancelled. */
  async run(
    prompt: string,
    options: MutationOptions & { model?: string } = {}
  ): Promise<RunStatus> {
    const { run_id } = await this.startRun(prompt, options);
    for (;;) {
      const status = await this.readRun(run_id, 60);
      if (status.state !== "queued" && status.state !== "running") {
        return status;
      }
    }
  }

  /** Asks a run to stop before its next pass. */
  cancelRun(runId: string) {
    return this.#send({
      method: "POST",
      path: `${this.#path}/runs/${seg(runId)}/cancel`,
      credential: this.token,
      schema: RunStatusSchema(),
      retry: "idempotent"
    });
  }

  /**
   * Copies the session `count` times (1 to 64) as it stands after its last
   * committed step; each copy is a session of its own, with its own token,
   * independent from then on. Where the server requires an API key to
   * create sessions, the client's `apiKey` is sent with it.
   *
   * @example
   * const [a, b] = await session.fork(2);
   * await a.step(left); await b.step(right);
   */
  async fork(
    count = 1,
    options: MutationOptions = {}
  ): Promise<RoostSession[]> {
    const forked = await this.#send({
      method: "POST",
      path: `${this.#path}/fork`,
      body: { count },
      credential: this.token,
      ...(this.apiKey ? { apiKey: this.apiKey } : {}),
      schema: ForkResponseSchema(),
      retry: "keyed",
      ...(options.idempotencyKey
        ? { idempotencyKey: options.idempotencyKey }
        : {})
    });
    return forked.sessions.map(
      (copy) =>
        new RoostSession(
          this.#send,
          copy.session_id,
          copy.token,
          copy.ws_url,
          this.apiKey
        )
    );
  }

  /** Deletes the session and all its storage. */
  delete() {
    return this.#send({
      method: "DELETE",
      path: this.#path,
      credential: this.token,
      schema: DeleteSessionResponseSchema(),
      retry: "idempotent"
    });
  }

  #mutate<T>(
    method: "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    options: MutationOptions = {}
  ): Promise<T> {
    return this.#send({
      method,
      path: this.#path + path,
      body,
      credential: this.token,
      schema,
      retry: "keyed",
      ...(options.idempotencyKey
        ? { idempotencyKey: options.idempotencyKey }
        : {})
    });
  }
}

const indexSegment = (index: number | undefined): string =>
  index === undefined ? "" : `/${index}`;
