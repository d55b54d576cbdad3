/**
 * Resolves once GET `url` answers 2xx; rejects after `timeoutMs`, or at once
 * if `stopped()` says the server process is gone.
 */
export declare const waitUntilReady: (
  url: string,
  options?: { timeoutMs?: number; intervalMs?: number; stopped?: () => boolean }
) => Promise<void>;
