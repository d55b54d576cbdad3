/** @module A decision model on any OpenAI-compatible chat completions server (OpenAI, LM Studio, vLLM, Ollama…). */

import { RoostError } from "../errors";
import type { CallOptions, DecisionModel } from "../tree/types";
import { isRetryableStatus, ModelError } from "./model-error";
import {
  DECIDE_TOOL,
  decisionMessages,
  decisionSchema,
  parseDecision,
  textMessages
} from "./prompt";

export interface OpenAIModelConfig {
  /** Up to the version, e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /**
   * `tools` forces a call to one `decide` function; `json` asks for a JSON
   * object, for servers whose tool calling is missing or weak. Default tools.
   */
  mode?: "tools" | "json";
  temperature?: number;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  name?: string;
}

interface ChatChoiceMessage {
  content?: unknown;
  tool_calls?: { function?: { arguments?: unknown } }[];
}

const errorText = (body: string): string => {
  try {
    const json = JSON.parse(body) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    const message =
      typeof json.error === "string"
        ? json.error
        : (json.error?.message ?? json.message);
    if (typeof message === "string" && message !== "") return message;
  } catch {
    // not JSON; the raw text is the best there is
  }
  return body.slice(0, 500);
};

/**
 * A `DecisionModel` that POSTs to `${baseUrl}/chat/completions`. Failures
 * come out as `ModelError`s; wrap it in `withRetries` to retry them.
 *
 * @example
 * const model = withRetries(openAIModel({ baseUrl: "http://127.0.0.1:1234/v1", model: "qwen3-8b" }));
 */
export const openAIModel = (config: OpenAIModelConfig): DecisionModel => {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const mode = config.mode ?? "tools";
  const name = config.name ?? `openai:${config.model}`;
  const doFetch = config.fetch ?? ((input, init) => fetch(input, init));

  const complete = async (
    body: Record<string, unknown>,
    options: CallOptions
  ): Promise<ChatChoiceMessage> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      ...config.headers
    };
    let res: Response;
    try {
      res = await doFetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          model: config.model,
          ...body,
          ...(config.temperature !== undefined
            ? { temperature: config.temperature }
            : {})
        }),
        ...(options.signal ? { signal: options.signal } : {})
      });
    } catch (error) {
      // The caller's abort is theirs to handle, not a failure to retry.
      if (options.signal?.aborted) throw error;
      throw new ModelError(
        `Could not reach the model server at ${url}: ${String(error)}`,
        true,
        undefined,
        { cause: error }
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ModelError(
        `The model server's answer broke off: ${String(error)}`,
        true,
        res.status,
        { cause: error }
      );
    }
    if (!res.ok) {
      throw new ModelError(
        `Model server answered ${res.status}: ${errorText(text)}`,
        isRetryableStatus(res.status),
        res.status
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new ModelError(
        `Model server sent a body that is not a JSON object: ${text.slice(0, 200)}`,
        true,
        res.status
      );
    }
    const choices = (json as { choices?: unknown }).choices;
    const message = Array.isArray(choices)
      ? (choices[0] as { message?: ChatChoiceMessage } | undefined)?.message
      : undefined;
    if (typeof message !== "object" || message === null)
      throw new ModelError("Model server sent no choices.", true, res.status);
    return message;
  };

  return {
    name,
    async decide(request, options) {
      if (mode === "json") {
        const message = await complete(
          {
            messages: decisionMessages(request, "json"),
            response_format: { type: "json_object" }
          },
          options
        );
        return parseDecision(message.content, request.options);
      }
      const message = await complete(
        {
          messages: decisionMessages(request, "tool"),
          tools: [
            {
              type: "function",
              function: {
                name: DECIDE_TOOL,
                description: "Record your decision for this step.",
                parameters: decisionSchema(request.options)
              }
            }
          ],
          tool_choice: { type: "function", function: { name: DECIDE_TOOL } }
        },
        options
      );
      // Some servers ignore tool_choice and put the JSON in the content.
      const args =
        message.tool_calls?.[0]?.function?.arguments ?? message.content;
      if (args === undefined || args === null || args === "")
        throw new ModelError("The model made no decision.", true);
      return parseDecision(args, request.options);
    },
    async respond(request, options) {
      const message = await complete(
        { messages: textMessages(request) },
        options
      );
      if (typeof message.content !== "string" || message.content.trim() === "")
        throw new ModelError("The model wrote an empty answer.", true);
      return message.content;
    },
    async chat(messages, options) {
      // In json mode the server is asked for a JSON object, as decisions
      // are: a judge's answer is one, and its prompt says so (OpenAI wants
      // the word "JSON" in the messages when this is set).
      const message = await complete(
        {
          messages,
          ...(mode === "json"
            ? { response_format: { type: "json_object" } }
            : {})
        },
        options
      );
      if (typeof message.content !== "string" || message.content.trim() === "")
        throw new ModelError("The model wrote an empty answer.", true);
      return message.content;
    }
  };
};

const envString = (env: Record<string, unknown>, key: string) => {
  const value = env[key];
  return typeof value === "string" && value !== "" ? value : undefined;
};

/**
 * The model configured by `ROOST_MODEL_BASE_URL`, `ROOST_MODEL` and optional
 * `ROOST_MODEL_API_KEY` / `ROOST_MODEL_MODE`; undefined when base URL or
 * model is missing, so a deployment without a model still runs.
 */
export const openAIModelFromEnv = (
  env: Record<string, unknown>
): DecisionModel | undefined => {
  const baseUrl = envString(env, "ROOST_MODEL_BASE_URL");
  const model = envString(env, "ROOST_MODEL");
  if (!baseUrl || !model) return undefined;
  const mode = envString(env, "ROOST_MODEL_MODE");
  if (mode !== undefined && mode !== "tools" && mode !== "json") {
    throw new RoostError(
      "internal",
      `ROOST_MODEL_MODE must be "tools" or "json", not "${mode}".`
    );
  }
  const apiKey = envString(env, "ROOST_MODEL_API_KEY");
  return openAIModel({
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(mode ? { mode } : {})
  });
};
