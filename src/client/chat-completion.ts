/**
 * @module One request to an OpenAI-compatible chat-completions endpoint,
 * retried with backoff: what the model policy and the group judge share.
 */

import { RoostClientError } from "./client-error";
import { backoffDelay, type Clock, sleep, systemClock } from "./clock";
import type { FetchLike } from "./request";

export interface ChatEndpoint {
  /** The API base, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey?: string;
  /** Tries per request on a 429, a 5xx or a network error (default 4). */
  attempts?: number;
  fetch?: FetchLike;
  clock?: Clock;
  random?: () => number;
}

/** The parts of a completion Roost reads; anything may be missing from a sloppy server. */
export interface Completion {
  choices?: {
    message?: {
      content?: unknown;
      tool_calls?: {
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }[];
    };
  }[];
  usage?: {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    total_tokens?: unknown;
  };
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * Posts `body` (a JSON string) and returns the completion with the
 * failures a retry got past. A 429, a 5xx or a network error is retried
 * with backoff, honouring `Retry-After` up to a minute; anything else, or
 * the last try, throws `model_error` with the failures in `details`.
 * The key travels only in the Authorization header, never in a message.
 */
export const requestCompletion = async (
  endpoint: ChatEndpoint,
  body: string
): Promise<{ completion: Completion; failures: string[] }> => {
  const fetcher: FetchLike = endpoint.fetch ?? ((u, i) => fetch(u, i));
  const clock = endpoint.clock ?? systemClock;
  const random = endpoint.random ?? Math.random;
  const attempts = Math.max(1, endpoint.attempts ?? 4);
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const failures: string[] = [];
  for (let attempt = 1; ; attempt++) {
    let response: Response | undefined;
    let problem: string;
    try {
      response = await fetcher(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(endpoint.apiKey
            ? { authorization: `Bearer ${endpoint.apiKey}` }
            : {})
        },
        body
      });
      if (response.ok) {
        return {
          completion: (await response.json()) as Completion,
          failures
        };
      }
      // A refused key's body may quote part of the key (OpenAI's "Incorrect
      // API key provided: sk-…abcd"), and this message goes into
      // trajectories and onto the terminal: its status alone is said.
      const text = await response.text();
      problem =
        response.status === 401 || response.status === 403
          ? `HTTP ${response.status} (the key was refused)`
          : `HTTP ${response.status}: ${text.slice(0, 200)}`;
      if (!retryable(response.status) || attempt >= attempts) {
        throw new RoostClientError(
          "model_error",
          `The model endpoint refused: ${problem}`,
          response.status,
          { retries: failures }
        );
      }
    } catch (error) {
      if (error instanceof RoostClientError) throw error;
      problem = error instanceof Error ? error.message : String(error);
      if (attempt >= attempts) {
        throw new RoostClientError(
          "model_error",
          `The model endpoint failed: ${problem}`,
          0,
          { retries: failures }
        );
      }
    }
    failures.push(problem);
    const after = Number(response?.headers.get("retry-after"));
    await sleep(
      clock,
      Math.max(
        backoffDelay(attempt, { baseMs: 500, maxMs: 30_000 }, random),
        Number.isFinite(after) && after > 0 ? Math.min(after, 60) * 1000 : 0
      )
    );
  }
};
