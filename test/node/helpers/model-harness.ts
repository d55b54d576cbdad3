/**
 * A harness for the model gateway's end-to-end tests: the official `openai`
 * npm client pointed at a session's gateway with a model token, playing
 * the counter against the vLLM stand-in (fake-vllm.ts), and what that
 * stand-in saw and sampled for each request, by its own tokenizer.
 */
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { inject } from "vitest";
import { createClient, type RoostSession } from "../../../src/client/index";
import {
  logprobOf,
  renderPrompt,
  replyTo,
  STUB_MODEL,
  tokenize
} from "../fake-vllm";

export const base = inject("baseUrl");
export const client = createClient({ baseUrl: base });

/** A harness that knows only a base URL and a key. */
export const harnessFor = async (session: RoostSession) => {
  const { token } = await session.mintToken({ scope: "model" });
  return {
    token,
    openai: new OpenAI({
      baseURL: `${base}/v1/sessions/${session.id}/model/v1`,
      apiKey: token,
      maxRetries: 0
    })
  };
};

export type Sent = ChatCompletionMessageParam[];

export interface Play {
  /** Called before each model call with the messages it will send. */
  before?: (messages: Sent) => Sent;
  model?: string;
  /** Sends a request again, as it was, when its call fails: a harness's retry. */
  retry?: boolean;
}

/**
 * Plays the counter: the model's tool calls become steps, their results
 * tool messages. Answers the requests whose answers the harness received.
 */
export const play = async (
  session: RoostSession,
  openai: OpenAI,
  messages: Sent,
  stream: boolean,
  { before = (m) => m, model = STUB_MODEL, retry = false }: Play = {}
): Promise<Sent[]> => {
  const sent: Sent[] = [];
  for (;;) {
    const request = before(messages);
    const params = { model, messages: request };
    const ask = () =>
      stream
        ? openai.chat.completions.stream(params).finalChatCompletion()
        : openai.chat.completions.create(params);
    const answer = await ask().catch((error: unknown) => {
      if (retry && error instanceof OpenAI.APIError) return ask();
      throw error;
    });
    sent.push(structuredClone(request));
    const message = answer.choices[0]!.message;
    messages = [...request, message as ChatCompletionMessageParam];
    if (!message.tool_calls?.length) return sent;
    const step = await session.step({
      role: "assistant",
      tool_calls: message.tool_calls.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: {
          name: (c as { function: { name: string } }).function.name,
          arguments: (c as { function: { arguments: string } }).function
            .arguments
        }
      }))
    });
    for (const o of step.observations)
      messages.push({
        role: "tool",
        tool_call_id: (o as { tool_call_id: string }).tool_call_id,
        content: String(o.content)
      });
  }
};

/** What the upstream saw and sampled for each request, by its own tokenizer. */
export const expected = (sent: Sent[]) =>
  sent.map((messages) => {
    const m = messages as Parameters<typeof renderPrompt>[0];
    const reply = replyTo(m);
    const text = reply.tool_calls
      ? reply.tool_calls
          .map((c) => `<tool>${c.function.name} ${c.function.arguments}</tool>`)
          .join("")
      : (reply.content ?? "");
    const completion = tokenize(`${text}<|end|>`);
    return {
      prompt: tokenize(renderPrompt(m)),
      completion,
      logprobs: completion.map(logprobOf)
    };
  });

export const counter = async () => {
  const session = await client.createSession({ environment: "counter" });
  await session.reset();
  return session;
};
