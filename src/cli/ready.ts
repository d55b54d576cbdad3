/** @module Waiting for a dev server: "Listening" is said only once wrangler dev answers requests. */

/**
 * Resolves once GET `url` is answered by the server: 2xx, or the generated
 * worker's 503 saying the author's modules failed to load (the server is up
 * and waits for the fix). Rejects after `timeoutMs`, or at once when
 * `stopped()` says the server process is gone.
 */
export const waitForServer = async (
  url: string,
  {
    timeoutMs = 120_000,
    intervalMs = 250,
    stopped = () => false
  }: { timeoutMs?: number; intervalMs?: number; stopped?: () => boolean } = {}
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopped()) throw new Error("the server exited before it answered");
    try {
      const response = await fetch(url, {
        signal: AbortSignal.timeout(Math.max(intervalMs, 2_000))
      });
      const body = await response.text();
      if (response.ok || (response.status === 503 && isOurs(body))) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

const isOurs = (body: string) => {
  try {
    return (
      (JSON.parse(body) as { error?: { code?: unknown } }).error?.code ===
      "unavailable"
    );
  } catch {
    return false;
  }
};
