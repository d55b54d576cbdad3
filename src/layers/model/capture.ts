/**
 * @module What the gateway keeps of an upstream's answer: the answer as the
 * harness read it (a streamed one assembled), and apart from it the token
 * ids and logprobs, in the fields vLLM's OpenAI server gives them
 * (`prompt_token_ids` at the top, `token_ids` and `logprobs.content` per
 * choice, a stream's spread over its chunks) and SGLang's (`prompt_token_ids`
 * per choice, unstreamed only). Choice 0's tokens are kept; other choices'
 * messages are kept without them.
 */

import type { JsonObject, JsonValue } from "../../json";

/** Choice 0's tokens, as the upstream gave them. */
export interface CapturedTokens {
  prompt: number[];
  completion: number[];
  logprobs?: (number | null)[];
}

export interface Captured {
  /** The answer without its token fields. */
  response: JsonObject;
  tokens?: CapturedTokens;
  finishReason?: string;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const ints = (v: unknown): number[] | undefined =>
  Array.isArray(v) && v.every((n) => Number.isInteger(n))
    ? (v as number[])
    : undefined;

const logprobsOf = (choice: Obj): (number | null)[] | undefined => {
  const content = isObj(choice.logprobs) ? choice.logprobs.content : undefined;
  return Array.isArray(content)
    ? content.map((t) =>
        isObj(t) && typeof t.logprob === "number" ? t.logprob : null
      )
    : undefined;
};

/** A choice without the fields the record keeps apart. */
const bareChoice = (choice: Obj): Obj => {
  const {
    token_ids: _ids,
    logprobs: _logprobs,
    prompt_token_ids: _prompt,
    meta_info: _meta,
    ...rest
  } = choice;
  return rest;
};

/** An unstreamed answer (`chat.completion`). */
export const captureResponse = (body: unknown): Captured | undefined => {
  if (!isObj(body) || !Array.isArray(body.choices)) return undefined;
  const choices = body.choices.filter(isObj);
  const first = choices.find((c) => c.index === 0) ?? choices[0];
  const {
    prompt_token_ids: prompt,
    prompt_logprobs: _pl,
    ...rest
  } = body as Obj;
  const promptIds = ints(prompt) ?? ints(first?.prompt_token_ids);
  const completion = first === undefined ? undefined : ints(first.token_ids);
  const logprobs = first === undefined ? undefined : logprobsOf(first);
  return {
    response: { ...rest, choices: choices.map(bareChoice) } as JsonObject,
    ...(promptIds !== undefined && completion !== undefined
      ? {
          tokens: {
            prompt: promptIds,
            completion,
            ...(logprobs === undefined ? {} : { logprobs })
          }
        }
      : {}),
    ...(typeof first?.finish_reason === "string"
      ? { finishReason: first.finish_reason }
      : {})
  };
};

interface ToolCallDraft {
  id?: string;
  type?: string;
  function: { name: string; arguments: string };
}

interface ChoiceDraft {
  role: string;
  content: string;
  reasoning?: string;
  toolCalls: ToolCallDraft[];
  finishReason?: string;
  ids: number[];
  logprobs: (number | null)[];
  sawIds: boolean;
  sawLogprobs: boolean;
}

/** Assembles a streamed answer from its chunks (`chat.completion.chunk`), as the harness reads it. */
export class StreamCapture {
  #head: Obj | undefined;
  #prompt: number[] | undefined;
  #usage: JsonValue | undefined;
  readonly #choices = new Map<number, ChoiceDraft>();

  add(chunk: unknown): void {
    if (!isObj(chunk)) return;
    this.#head ??= chunk;
    this.#prompt ??= ints(chunk.prompt_token_ids);
    if (isObj(chunk.usage)) this.#usage = chunk.usage as JsonValue;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!isObj(choice)) continue;
      const index = typeof choice.index === "number" ? choice.index : 0;
      let draft = this.#choices.get(index);
      if (draft === undefined) {
        draft = {
          role: "assistant",
          content: "",
          toolCalls: [],
          ids: [],
          logprobs: [],
          sawIds: false,
          sawLogprobs: false
        };
        this.#choices.set(index, draft);
      }
      const delta = isObj(choice.delta) ? choice.delta : {};
      if (typeof delta.role === "string") draft.role = delta.role;
      if (typeof delta.content === "string") draft.content += delta.content;
      const reasoning = delta.reasoning ?? delta.reasoning_content;
      if (typeof reasoning === "string")
        draft.reasoning = (draft.reasoning ?? "") + reasoning;
      if (Array.isArray(delta.tool_calls))
        for (const call of delta.tool_calls) {
          if (!isObj(call)) continue;
          const at = typeof call.index === "number" ? call.index : 0;
          const fn = isObj(call.function) ? call.function : {};
          const tool = draft.toolCalls[at] ?? {
            function: { name: "", arguments: "" }
          };
          draft.toolCalls[at] = tool;
          if (typeof call.id === "string") tool.id = call.id;
          if (typeof call.type === "string") tool.type = call.type;
          if (typeof fn.name === "string") tool.function.name += fn.name;
          if (typeof fn.arguments === "string")
            tool.function.arguments += fn.arguments;
        }
      if (typeof choice.finish_reason === "string")
        draft.finishReason = choice.finish_reason;
      const ids = ints(choice.token_ids);
      if (ids !== undefined) {
        draft.sawIds = true;
        draft.ids.push(...ids);
      }
      const logprobs = logprobsOf(choice);
      if (logprobs !== undefined) {
        draft.sawLogprobs = true;
        draft.logprobs.push(...logprobs);
      }
    }
  }

  /** The answer as one `chat.completion`, with choice 0's tokens apart. */
  finish(): Captured {
    const head = this.#head ?? {};
    const choices = [...this.#choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, d]) => ({
        index,
        message: {
          role: d.role,
          content:
            d.toolCalls.length > 0 && d.content === "" ? null : d.content,
          ...(d.reasoning === undefined ? {} : { reasoning: d.reasoning }),
          ...(d.toolCalls.length > 0
            ? { tool_calls: d.toolCalls.filter(Boolean) }
            : {})
        },
        finish_reason: d.finishReason ?? null
      }));
    const first = this.#choices.get(0);
    return {
      response: {
        ...(typeof head.id === "string" ? { id: head.id } : {}),
        object: "chat.completion",
        ...(typeof head.created === "number" ? { created: head.created } : {}),
        ...(typeof head.model === "string" ? { model: head.model } : {}),
        choices,
        ...(this.#usage === undefined ? {} : { usage: this.#usage })
      } as unknown as JsonObject,
      ...(this.#prompt !== undefined && first?.sawIds
        ? {
            tokens: {
              prompt: this.#prompt,
              completion: first.ids,
              ...(first.sawLogprobs ? { logprobs: first.logprobs } : {})
            }
          }
        : {}),
      ...(first?.finishReason === undefined
        ? {}
        : { finishReason: first.finishReason })
    };
  }
}
