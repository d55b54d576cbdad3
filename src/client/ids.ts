/** @module Random ids for idempotency keys and request ids. */

/**
 * 128 random bits as hex. `crypto.randomUUID` exists only in secure
 * contexts in browsers; `getRandomValues` exists everywhere.
 */
export const randomId = (): string => {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
};
