/** @module In-memory state and transcript backends: the pure core's storage and the contract's reference. */

import { cloneJson, type JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { StateBackend, TranscriptBackend } from "./types";

/** State values in a Map. Copies in and out, like a database would. */
export class MemoryStateBackend implements StateBackend {
  #values = new Map<string, JsonValue>();

  get(key: string): JsonValue | undefined {
    const value = this.#values.get(key);
    return value === undefined ? undefined : cloneJson(value);
  }

  set(key: string, value: JsonValue): void {
    this.#values.set(key, cloneJson(value));
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }
}

/** The transcript as an array of copies, oldest first. */
export class MemoryTranscriptBackend implements TranscriptBackend {
  #messages: Message[] = [];

  append(messages: Message[]): void {
    for (const message of messages) this.#messages.push(cloneJson(message));
  }

  count(): number {
    return this.#messages.length;
  }

  list(offset: number, limit: number): Message[] {
    const start = Math.max(0, offset);
    return this.#messages
      .slice(start, start + Math.max(0, limit))
      .map((m) => cloneJson(m));
  }
}
