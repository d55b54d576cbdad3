/** @module Requests sent over the socket, waiting for the `reply` with their id; re-sent after a reconnect. */

import type { JsonValue } from "../json";
import type { ClientFrameInput, ReplyFrame } from "../protocol";
import { RoostClientError } from "./client-error";
import { randomId } from "./ids";

type RequestFrameInput = Extract<
  ClientFrameInput,
  { type: "step" | "reset" | "call" | "fork" | "cancel" }
>;

/** A request frame as callers write it: `id` is filled in when left out. */
export type SocketRequest = RequestFrameInput extends infer F
  ? F extends RequestFrameInput
    ? Omit<F, "id"> & { id?: string }
    : never
  : never;

interface Pending {
  text: string;
  resolve: (value: JsonValue) => void;
  reject: (error: RoostClientError) => void;
}

/**
 * In flight until answered. Replies to a socket that dropped are lost, so
 * every unanswered request is sent again on the next socket; step, reset,
 * call and fork carry an idempotency key (the caller's or a fresh one), so the
 * server answers a repeat with the first response instead of running it twice.
 */
export class PendingRequests {
  readonly #waiting = new Map<string, Pending>();
  #counter = 0;
  readonly #prefix = randomId().slice(0, 8);

  /** Registers a request; returns its frame text and the promise of its value. */
  add(request: SocketRequest): { text: string; reply: Promise<JsonValue> } {
    const id = request.id ?? `${this.#prefix}-${++this.#counter}`;
    const frame =
      request.type === "cancel" || request.idempotency_key !== undefined
        ? { ...request, id }
        : { ...request, id, idempotency_key: randomId() };
    const text = JSON.stringify(frame);
    const reply = new Promise<JsonValue>((resolve, reject) => {
      this.#waiting.set(id, { text, resolve, reject });
    });
    return { text, reply };
  }

  /** Frames to send on a new socket, oldest first. */
  texts(): string[] {
    return [...this.#waiting.values()].map((p) => p.text);
  }

  /** Settles the request a reply answers; replies to unknown ids are repeats and ignored. */
  settle(reply: ReplyFrame): void {
    const pending = this.#waiting.get(reply.id);
    if (!pending) return;
    this.#waiting.delete(reply.id);
    if (reply.ok) pending.resolve(reply.value);
    else
      pending.reject(
        new RoostClientError(
          reply.error.code,
          reply.error.message,
          0,
          reply.error.details
        )
      );
  }

  /** Fails one request (a `protocol.error` naming it); true if it was waiting. */
  fail(id: string, error: RoostClientError): boolean {
    const pending = this.#waiting.get(id);
    if (!pending) return false;
    this.#waiting.delete(id);
    pending.reject(error);
    return true;
  }

  failAll(error: RoostClientError): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const pending of all) pending.reject(error);
  }
}
