/** @module A session's WebSocket address, as a client outside reaches it. */

/** `wss://host/v1/sessions/<id>/ws`, or `ws://` when `base` is http. */
export const wsUrl = (base: string, sessionId: string): string => {
  const url = new URL(`/v1/sessions/${sessionId}/ws`, base);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  return url.toString();
};
