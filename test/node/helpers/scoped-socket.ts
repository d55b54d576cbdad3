/**
 * @module A Roost session socket opened with the `ws` package, as a Node
 * user opens one, keeping every frame and how it ended.
 */
import WebSocket from "ws";
import { createSignal } from "../../shared/signal";
import { type Frame, framesOf } from "./frames";

/**
 * A socket as a Node user opens one: the token in the subprotocol (as the
 * browser client sends it) or, where a client cannot set one, `?token=`.
 */
export const openSocket = (
  wsUrl: string,
  token: string,
  via: "protocol" | "query"
) => {
  const ws =
    via === "protocol"
      ? new WebSocket(wsUrl, ["roost.v1", `roost.token.${token}`])
      : new WebSocket(`${wsUrl}?token=${encodeURIComponent(token)}`);
  const frames: Frame[] = [];
  const signal = createSignal();
  let closed: number | undefined;
  /** What ws reported instead of opening (an HTTP answer to the upgrade, say). */
  let failed: string | undefined;
  ws.on("error", (error) => {
    failed = error.message;
  });
  ws.on("message", (data) => {
    frames.push(...framesOf(data));
    signal.notify();
  });
  ws.on("close", (code) => {
    closed = code;
    signal.notify();
  });
  const until = async (predicate: (f: Frame[]) => boolean, what: string) => {
    await signal.until(() => predicate(frames), {
      what,
      stop: () =>
        closed === undefined ? undefined : `closed (${closed}) before ${what}`
    });
  };
  /** Sends a frame and waits for its reply. */
  const request = async (frame: { id: string; [k: string]: unknown }) => {
    ws.send(JSON.stringify(frame));
    await until(
      (f) => f.some((x) => x.type === "reply" && x.id === frame.id),
      `the reply to ${frame.id}`
    );
    // biome-ignore lint/suspicious/noExplicitAny: the test reads the fields it asserts on.
    return frames.find((x) => x.type === "reply" && x.id === frame.id) as any;
  };
  /**
   * The close code, once the close event comes. Under wrangler dev it
   * comes about 10 s after the server's close frame (the connection is
   * ended late), for every close the session makes (a deletion's 4404
   * too), hence the long wait.
   */
  const closeCode = async () => {
    await signal.until(() => closed !== undefined, {
      what: "the socket to close",
      timeoutMs: 25_000
    });
    return { code: closed!, failed };
  };
  const snapshot = () =>
    until((f) => f.some((x) => x.type === "session.snapshot"), "the snapshot");
  return { ws, frames, until, request, closeCode, snapshot };
};
