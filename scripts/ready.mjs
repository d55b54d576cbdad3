// Waits until a server answers: `npm start` says "Listening" only once
// wrangler dev actually serves requests, not when it was launched.

/**
 * Resolves once GET `url` answers 2xx; rejects after `timeoutMs`, or at once
 * if `stopped()` says the server process is gone.
 */
export const waitUntilReady = async (
  url,
  { timeoutMs = 120_000, intervalMs = 250, stopped = () => false } = {}
) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopped()) throw new Error("the server exited before it answered");
    try {
      const response = await fetch(url, {
        signal: AbortSignal.timeout(Math.max(intervalMs, 2_000))
      });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
