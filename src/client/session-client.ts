/** @module A handle on one session: every session route as a typed method. */

import type * as z from "zod";
import type { JsonObject, JsonValue } from "../json";
import {
  type ActionInput,
  DeleteSessionResponseSchema,
  ForkResponseSchema,
  HiddenResponseSchema,
  ResetResponseSchema,
  RevokeResponseSchema,
  RunCreatedSchema,
  type RunStatus,
  RunStatusSchema,
  type Scope,
  type SessionAction,
  type StateHandlerName,
  StatePatchResponseSchema,
  StepResponseSchema,
  StoreEntryResponseSchema,
  StoreRemoveResponseSchema,
  scopeCan,
  scopeOfCredential,
  TokenResponseSchema,
  ToolInvocationResponseSchema
} from "../protocol";
import type { Transport } from "./request";
import {
  indexSegment,
  type MutationOptions,
  type ScopedToken,
  type StoreWrite,
  writeBody
} from "./session-options";
import { SessionReads } from "./session-reads";

export type { MutationOptions, ScopedToken, StoreWrite };

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
  /** Shared with the reads, so a fresh control token reaches them too. */
  readonly #credential: { token: string };

  constructor(
    send: Transport,
    readonly id: string,
    /** The session token (of any scope), or an API key, sent as the bearer credential. */
    token: string,
    /** The socket URL the server gave at creation. */
    readonly wsUrl?: string,
    /** The client's API key, sent beside the token where a key is needed (forking). */
    readonly apiKey?: string
  ) {
    const root = `/v1/sessions/${seg(id)}`;
    const credential = { token };
    super((path, schema, query) =>
      send({
        method: "GET",
        path: root + path,
        ...(query ? { query } : {}),
        credential: credential.token,
        schema,
        retry: "idempotent"
      })
    );
    this.#send = send;
    this.#path = root;
    this.#credential = credential;
  }

  /**
   * The credential this handle sends. It changes only when
   * `revokeTokens("control")` answers a fresh control token.
   */
  get token(): string {
    return this.#credential.token;
  }

  /**
   * What the handle's credential may do: a scoped token's scope, `control`
   * for a session's first token or an API key. Read from the token itself;
   * the server still decides each call (a revoked or expired token answers
   * 401 whatever this says).
   */
  get scope(): Scope {
    return scopeOfCredential(this.token);
  }

  /** Whether the credential's scope allows `action`, e.g. `can("step")`. */
  can(action: SessionAction): boolean {
    return scopeCan(this.scope, action);
  }

  /**
   * A token for this session holding `scope` only, refused after `ttl`
   * seconds (default a day, at most 30 days). Needs a control token or an
   * API key. Open a handle with it through `client.session(id, token)`, or
   * hand it to a browser: an `observe` token watches, an `act` token steps.
   * With `agent`, one agent's of a multi-agent session: it steps only as
   * that agent and reads only its view.
   * (Named `mintToken`, not `token`: `token` is the handle's own credential.)
   *
   * @example
   * const { token } = await session.mintToken({ scope: "observe", ttl: 3600 });
   * const viewer = client.session(session.id, token);
   */
  async mintToken(
    { scope, ttl, agent }: { scope: Scope; ttl?: number; agent?: string },
    options: MutationOptions = {}
  ): Promise<ScopedToken> {
    const minted = await this.#mutate(
      "POST",
      "/tokens",
      {
        scope,
        ...(ttl === undefined ? {} : { ttl_s: ttl }),
        ...(agent === undefined ? {} : { agent })
      },
      TokenResponseSchema(),
      options
    );
    return {
      token: minted.token,
      scope: minted.scope,
      ...(minted.agent === undefined ? {} : { agent: minted.agent }),
      expiresAt: minted.expires_at
    };
  }

  /**
   * Refuses every token of `scope` signed until now (a leaked link) and
   * closes the sockets opened with one. API keys are not affected.
   * Revoking `control` with this handle's own control token refuses it
   * too: the server answers a fresh one, and the handle switches to it, so
   * it keeps working (sockets opened before reconnect with the new
   * `session.token`).
   */
  async revokeTokens(
    scope: Scope,
    options: MutationOptions = {}
  ): Promise<{ scope: Scope; revokedBefore: string; token?: string }> {
    const revoked = await this.#mutate(
      "POST",
      "/tokens/revoke",
      { scope },
      RevokeResponseSchema(),
      options
    );
    if (revoked.token !== undefined) this.#credential.token = revoked.token;
    return {
      scope: revoked.scope,
      revokedBefore: revoked.revoked_before,
      ...(revoked.token === undefined ? {} : { token: revoked.token })
    };
  }

  /**
   * One page of the hidden store, what the model never sees: a grade
   * token's alone (any other credential answers 403 `forbidden`). Follow
   * `next_cursor` for the rest.
   */
  hidden(query: { cursor?: string; maxBytes?: number } = {}) {
    return this.#send({
      method: "GET",
      path: `${this.#path}/hidden`,
      query: { cursor: query.cursor, max_bytes: query.maxBytes },
      credential: this.token,
      schema: HiddenResponseSchema(),
      retry: "idempotent"
    });
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

  /** One step; in a multi-agent environment, `agent`'s (whoever's turn it is when left out). */
  step(
    action: ActionInput,
    options: MutationOptions & { agent?: string } = {}
  ) {
    const { agent, ...mutation } = options;
    return this.#mutate(
      "POST",
      "/step",
      agent === undefined ? { action } : { action, agent },
      StepResponseSchema(),
      mutation
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
    options: MutationOptions & {
      /** Copy the episode as it stood right after this step (a branchable environment's). */
      step?: number;
    } = {}
  ): Promise<RoostSession[]> {
    const forked = await this.#send({
      method: "POST",
      path: `${this.#path}/fork`,
      body:
        options.step === undefined ? { count } : { count, step: options.step },
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
