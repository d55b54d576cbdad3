/** @module The part of a WebSocket the client uses, so a browser's and `ws`'s both fit. */

/** The fields the client reads from open, message, close and error events. */
export interface SocketEventLike {
  type: string;
  data?: unknown;
  code?: number;
  reason?: string;
}

/**
 * Both the DOM `WebSocket` and the `ws` package's satisfy this. Listeners
 * are added with `addEventListener` because `ws` types its `on…` properties
 * with its own event classes, which a structural type cannot match.
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: "open" | "message" | "close" | "error",
    listener: (event: SocketEventLike) => void
  ): void;
}

export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[]
) => WebSocketLike;

/** `readyState` of an open socket, the same in every implementation. */
export const OPEN = 1;

/** The platform's WebSocket, or a clear error telling Node 20 users what to pass. */
export const defaultWebSocket = (): WebSocketConstructor => {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!global) {
    throw new TypeError(
      'This runtime has no global WebSocket (Node 20): pass one, e.g. `import { WebSocket } from "ws"; connectSession({ WebSocket, … })`.'
    );
  }
  return global;
};

/** Text of a message event: strings as they are, binary frames as UTF-8. */
export const frameText = (data: unknown): string | undefined => {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data))
    return new TextDecoder().decode(data);
  return undefined;
};

/** `ws://` for `http://`, `wss://` for `https://`. */
export const socketUrl = (
  baseUrl: string,
  sessionId: string,
  after: number | undefined
): string => {
  const url = new URL(
    `${baseUrl.replace(/\/+$/, "")}/v1/sessions/${encodeURIComponent(sessionId)}/ws`
  );
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (after !== undefined) url.searchParams.set("after", String(after));
  return url.toString();
};
