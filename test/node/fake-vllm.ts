/**
 * A stand-in for vLLM's OpenAI server with token ids on, answering as its
 * source does (`vllm/entrypoints/openai/chat_completion/protocol.py` and
 * `serving.py`): with `return_token_ids`, `prompt_token_ids` at the top of
 * the answer (of a stream's first chunk) and `token_ids` per choice (per
 * chunk, the new ids only); with `logprobs`, `logprobs.content` entries of
 * `{token, logprob, bytes, top_logprobs}`; a stream's chunks as
 * `data: <json>` events, usage in a last empty-choices chunk when
 * `stream_options.include_usage`, then `data: [DONE]`; errors as
 * `{error: {message, type, param, code}}` with an integer code.
 *
 * Stateless, so every test may share it: its tokenizer is one token per
 * character of a fixed chat template, and its model plays the counter —
 * it calls `incr` until the conversation holds as many tool answers as the
 * first user message asks (`steps:N`), then says `done`.
 */
import type { ServerResponse } from "node:http";

interface Message {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export const STUB_MODEL = "vllm-stub";
export const STUB_FAILING = "vllm-stub-failing";
/** Streams its first chunks, then waits a second before the rest: a test acts mid-stream. */
export const STUB_SLOW = "vllm-stub-slow";
/**
 * Cuts its stream off after a few chunks the first time it is asked a
 * prompt, and answers it whole when asked again: vLLM behind a flaky proxy.
 */
export const STUB_CUT = "vllm-stub-cut";
export const STUB_MODELS: readonly string[] = [
  STUB_MODEL,
  STUB_FAILING,
  STUB_SLOW,
  STUB_CUT
];

/** The prompts STUB_CUT has cut off once; tests make theirs unique. */
const cutOnce = new Set<string>();

/** How many of a cut stream's events go out before the connection drops: its head and three chunks of ids. */
export const CUT_AFTER_EVENTS = 4;

const renderTurn = (m: Message): string =>
  m.tool_calls?.length
    ? m.tool_calls
        .map((c) => `<tool>${c.function.name} ${c.function.arguments}</tool>`)
        .join("")
    : (m.content ?? "");

/** The prompt as the model reads it: each message in the template, then the assistant's turn opened. */
export const renderPrompt = (messages: Message[]): string =>
  `${messages.map((m) => `<|${m.role}|>${renderTurn(m)}<|end|>`).join("")}<|assistant|>`;

export const tokenize = (text: string): number[] =>
  [...text].map((ch) => ch.codePointAt(0) as number);

export const logprobOf = (id: number): number => -((id % 7) / 10) - 0.01;

/** What the stub model answers a conversation with: a tool call, or `done`. */
export const replyTo = (messages: Message[]): Message => {
  const wanted = Number(
    /steps:(\d+)/.exec(
      messages.find((m) => m.role === "user")?.content ?? ""
    )?.[1] ?? 1
  );
  const answered = messages.filter((m) => m.role === "tool").length;
  return answered < wanted
    ? {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `call_${answered + 1}`,
            function: { name: "incr", arguments: "{}" }
          }
        ]
      }
    : { role: "assistant", content: "done" };
};

const entry = (id: number) => ({
  token: String.fromCodePoint(id),
  logprob: logprobOf(id),
  bytes: [...Buffer.from(String.fromCodePoint(id))],
  top_logprobs: []
});

/** Answers a chat completion as vLLM would. */
export const answerAsVllm = (
  body: {
    model: string;
    messages: Message[];
    stream?: boolean;
    logprobs?: boolean;
    return_token_ids?: boolean;
    stream_options?: { include_usage?: boolean };
  },
  res: ServerResponse
): void => {
  if (body.model === STUB_FAILING) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: {
          message: "CUDA out of memory",
          type: "InternalServerError",
          param: null,
          code: 500
        }
      })
    );
    return;
  }
  const prompt = tokenize(renderPrompt(body.messages));
  const reply = replyTo(body.messages);
  const completion = tokenize(`${renderTurn(reply)}<|end|>`);
  const ids = body.return_token_ids === true;
  const lp = body.logprobs === true;
  const finish = reply.tool_calls ? "tool_calls" : "stop";
  const usage = {
    prompt_tokens: prompt.length,
    total_tokens: prompt.length + completion.length,
    completion_tokens: completion.length
  };
  const head = {
    id: "chatcmpl-stub",
    created: 1_700_000_000,
    model: body.model
  };
  const toolCalls = reply.tool_calls?.map((c) => ({ ...c, type: "function" }));
  if (body.stream !== true) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        ...head,
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.content ?? null,
              refusal: null,
              annotations: null,
              audio: null,
              function_call: null,
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
              reasoning: null
            },
            logprobs: lp ? { content: completion.map(entry) } : null,
            finish_reason: finish,
            stop_reason: null,
            token_ids: ids ? completion : null
          }
        ],
        service_tier: null,
        system_fingerprint: null,
        usage,
        prompt_logprobs: null,
        prompt_token_ids: ids ? prompt : null,
        kv_transfer_params: null
      })
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const events: string[] = [];
  const chunk = (choice: object, extra: object = {}) =>
    events.push(
      `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices: [{ index: 0, ...choice }], ...extra })}\n\n`
    );
  chunk(
    {
      delta: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: null
    },
    { prompt_token_ids: ids ? prompt : null }
  );
  // Four tokens a chunk; a tool call's deltas ride on the first two, and
  // the rest go with an empty delta, as vLLM sends held-back tokens.
  for (let i = 0; i < completion.length; i += 4) {
    const part = completion.slice(i, i + 4);
    const last = i + 4 >= completion.length;
    const delta =
      toolCalls === undefined
        ? { content: String.fromCodePoint(...part) }
        : i === 0
          ? {
              tool_calls: [
                {
                  index: 0,
                  id: toolCalls[0]!.id,
                  type: "function",
                  function: { name: toolCalls[0]!.function.name, arguments: "" }
                }
              ]
            }
          : i === 4
            ? {
                tool_calls: [
                  {
                    index: 0,
                    function: { arguments: toolCalls[0]!.function.arguments }
                  }
                ]
              }
            : {};
    chunk({
      delta,
      logprobs: lp ? { content: part.map(entry) } : null,
      finish_reason: last ? finish : null,
      ...(last ? { stop_reason: null } : {}),
      token_ids: ids ? part : null
    });
  }
  if (body.stream_options?.include_usage)
    events.push(
      `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices: [], usage })}\n\n`
    );
  events.push("data: [DONE]\n\n");
  const key = JSON.stringify(prompt);
  if (body.model === STUB_CUT && !cutOnce.has(key)) {
    cutOnce.add(key);
    // No last chunk and no end of the chunked body: the connection drops.
    res.write(events.slice(0, CUT_AFTER_EVENTS).join(""), () => res.destroy());
    return;
  }
  if (body.model !== STUB_SLOW) {
    res.end(events.join(""));
    return;
  }
  res.write(events.slice(0, 2).join(""));
  setTimeout(() => res.end(events.slice(2).join("")), 1000);
};
