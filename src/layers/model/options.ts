/** @module What a deployment says of its model gateway: the upstream, whether to ask for token ids, and its limits. */

/** Where calls go: an OpenAI-compatible server's base URL (with its `/v1`) and key. */
export interface Upstream {
  baseUrl: string;
  apiKey?: string;
}

export interface ModelGatewayOptions {
  /**
   * The upstream, from the worker's bindings. Default: `ROOST_MODEL_BASE_URL`
   * and `ROOST_MODEL_API_KEY` (a secret), as the decision-tree model reads them.
   */
  upstream?: (
    env: Record<string, unknown>,
    /** The session's environment: an upstream per environment, if you like. */
    environment: string
  ) => Upstream | undefined;
  /**
   * Ask the upstream for token ids and logprobs on the harness's behalf
   * (vLLM's `return_token_ids`, and `logprobs` unless the harness set it).
   * Default: `ROOST_MODEL_TOKEN_IDS` is `1`.
   */
  tokenIds?: boolean;
  /** Calls an episode may make (default 1 000). */
  maxCalls?: number;
  /** Tokens an episode's calls may use, as the upstream counts them (default 10 000 000). */
  maxTokens?: number;
  /** Bytes of record an episode's calls may keep (default 256 MiB). */
  maxBytes?: number;
  /** Bytes of one answer the gateway reads, streamed or not (default 8 MiB). */
  responseBytes?: number;
  /** How long the upstream has to answer (default 10 minutes). */
  timeoutMs?: number;
}

export interface ResolvedGateway {
  upstream: (env: unknown, environment: string) => Upstream | undefined;
  tokenIds: boolean;
  maxCalls: number;
  maxTokens: number;
  maxBytes: number;
  responseBytes: number;
  timeoutMs: number;
}

const text = (env: unknown, key: string): string | undefined => {
  const value = (env as Record<string, unknown>)[key];
  return typeof value === "string" && value !== "" ? value : undefined;
};

export const resolveGateway = (
  options: ModelGatewayOptions,
  env?: unknown
): ResolvedGateway => ({
  upstream: (e, environment) =>
    options.upstream !== undefined
      ? options.upstream(e as Record<string, unknown>, environment)
      : text(e, "ROOST_MODEL_BASE_URL") === undefined
        ? undefined
        : {
            baseUrl: text(e, "ROOST_MODEL_BASE_URL") as string,
            ...(text(e, "ROOST_MODEL_API_KEY") === undefined
              ? {}
              : { apiKey: text(e, "ROOST_MODEL_API_KEY") as string })
          },
  tokenIds: options.tokenIds ?? text(env, "ROOST_MODEL_TOKEN_IDS") === "1",
  maxCalls: options.maxCalls ?? 1000,
  maxTokens: options.maxTokens ?? 10_000_000,
  maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
  responseBytes: options.responseBytes ?? 8 * 1024 * 1024,
  timeoutMs: options.timeoutMs ?? 600_000
});
