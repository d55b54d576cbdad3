/**
 * @module The transcript as a read must give it back: the reset's user
 * message, then per step its assistant message (three planned texts) and
 * the "no tool calls" observation, each exactly once and in order.
 */

import { PARTS_PER_MESSAGE, STEPS, textOf } from "./plan";

interface Message {
  role: string;
  content?: unknown;
}

/** What the counter answers a step without tool calls. */
const NO_TOOL_CALLS =
  "No tool calls received. Please call one or more tools to proceed.";

export class TranscriptSequence {
  #index = 0;

  /** Messages the whole transcript holds. */
  static readonly length = 1 + 2 * STEPS;

  /** Takes the next message; throws if it is not the one expected. */
  take(message: Message): void {
    const at = this.#index;
    const fail = (why: string) => {
      throw new Error(`Message ${at}: ${why}.`);
    };
    if (at >= TranscriptSequence.length) fail("past the transcript's end");
    if (at === 0) {
      if (
        message.role !== "user" ||
        !String(message.content).startsWith("Count to")
      )
        fail(`not the reset's observation (${message.role})`);
    } else if (at % 2 === 1) {
      const s = (at - 1) / 2;
      const parts = message.content as { type: string; text: string }[];
      if (message.role !== "assistant" || !Array.isArray(parts))
        fail(`expected step ${s}'s assistant message, got ${message.role}`);
      if (parts.length !== PARTS_PER_MESSAGE) fail(`${parts.length} parts`);
      parts.forEach((part, p) => {
        if (part.type !== "text" || part.text !== textOf(s, p))
          fail(`part ${p} is not step ${s}'s (${part.text?.slice(0, 24)})`);
      });
    } else if (message.role !== "user" || message.content !== NO_TOOL_CALLS) {
      fail(`expected the step's observation, got ${message.role}`);
    }
    this.#index++;
  }

  /** Throws unless every message was taken. */
  finish(): number {
    if (this.#index !== TranscriptSequence.length) {
      throw new Error(
        `The transcript read ended at message ${this.#index} of ${TranscriptSequence.length}.`
      );
    }
    return this.#index;
  }
}
