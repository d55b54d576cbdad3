/** @module Checking messages before they are appended to the transcript (the virtual `messages` key). */

import * as z from "zod";
import { RoostError } from "../errors";
import { utf8Length } from "../json";
import { type Message, MessageSchema } from "../messages/schema";
import { mergeLists } from "./handlers";
import { jsonProblem } from "./json-check";
import { invalidValue, issuesOf, notJson, tooLarge } from "./state-errors";
import type { Handler } from "./types";

/**
 * Validates one message or a list of them for appending: all are accepted
 * or none. Only `mergeLists` may be named as the handler, because the
 * transcript is append-only (one row per message, never one growing value).
 * Each message is capped as `messageText` says.
 */
export const prepareMessages = (
  value: unknown,
  handler: Handler | undefined,
  maxBytes: number
): Message[] => {
  if (handler !== undefined && handler !== mergeLists) {
    throw new RoostError(
      "invalid_state_value",
      "messages: messages is append-only; set it without a handler (or with merge_lists) to append.",
      { key: "messages", issues: [] }
    );
  }
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    const where = Array.isArray(value) ? `message ${i}: ` : "";
    const problem = jsonProblem(item, "value");
    if (problem) throw notJson("messages", `${where}${problem}`);
    const parsed = z.safeParse(MessageSchema(), item);
    if (!parsed.success) {
      throw invalidValue("messages", issuesOf(parsed.error), where);
    }
    const text = messageText(parsed.data, i, maxBytes);
    // A copy of its own, from the text already made (what cloneJson does).
    return JSON.parse(text) as Message;
  });
};

/**
 * A checked message's JSON text, refused over `maxBytes`: each message is
 * capped like a state value, so no row can outgrow SQLite. A session's step
 * calls it for an action its dispatch already parsed as a message.
 */
export const messageText = (
  message: Message,
  i: number,
  maxBytes: number
): string => {
  const text = JSON.stringify(message);
  const bytes = utf8Length(text);
  if (bytes > maxBytes) throw tooLarge(`messages[${i}]`, bytes, maxBytes);
  return text;
};
