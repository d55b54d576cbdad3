/**
 * @module Roost's own session socket as a scenario 12 contender: the
 * session made over HTTP (`POST /v1/sessions`), then its socket opened
 * with the token as a subprotocol, as the TypeScript client does. Requests
 * are matched to their `reply` by id; the snapshot and event batches the
 * socket also streams are skipped. Its close deletes the session, as
 * OpenEnv's close deletes the socket's own.
 */

import WebSocket from "ws";
import { type Dial, type EpisodeSocket, TIMEOUT_MS } from "./socket-waves";

/** The counter's `incr`, as the assistant message a step takes. */
const ACTION = {
  role: "assistant",
  tool_calls: [
    { id: "c1", type: "function", function: { name: "incr", arguments: "{}" } }
  ]
};

/** The part of a reply the bench reads. */
interface Reply {
  type: string;
  id?: string;
  ok?: boolean;
  error?: { code?: string; message?: string };
  message?: string;
}

interface Pending {
  answered: () => void;
  failed: (error: Error) => void;
}

/** The session's socket, open; rejects if it closes or fails before it opens. */
const openSessionSocket = (url: string, token: string) =>
  new Promise<EpisodeSocket>((resolve, reject) => {
    const ws = new WebSocket(url, ["roost.v1", `roost.token.${token}`], {
      handshakeTimeout: TIMEOUT_MS
    });
    const pending = new Map<string, Pending>();
    let ids = 0;
    let ended: Error | undefined;
    let onClose: (() => void) | undefined;
    const end = (error: Error) => {
      ended ??= error;
      reject(error);
      for (const p of pending.values()) p.failed(error);
      pending.clear();
      onClose?.();
    };
    ws.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      // A step's events come as one batch before its reply: skip them unparsed.
      if (text.startsWith('{"type":"batch"')) return;
      const frame = JSON.parse(text) as Reply;
      if (frame.type === "protocol.error") {
        // Names no request: fail them all, as none can be trusted now.
        for (const p of pending.values())
          p.failed(new Error(`protocol.error: ${frame.message ?? text}`));
        pending.clear();
        return;
      }
      if (frame.type !== "reply" || frame.id === undefined) return;
      const p = pending.get(frame.id);
      if (p === undefined) return;
      pending.delete(frame.id);
      if (frame.ok) p.answered();
      else
        p.failed(
          new Error(
            `${frame.error?.code ?? "error"}: ${frame.error?.message ?? ""}`.trim()
          )
        );
    });
    ws.once("error", end);
    ws.once("close", (code) => end(new Error(`closed with ${code}`)));
    const request = (frame: Record<string, unknown>) =>
      new Promise<void>((answered, failed) => {
        if (ended !== undefined) return failed(ended);
        const id = `r${++ids}`;
        const timer = setTimeout(() => {
          pending.delete(id);
          failed(new Error("no reply in time"));
        }, TIMEOUT_MS);
        pending.set(id, {
          answered: () => {
            clearTimeout(timer);
            answered();
          },
          failed: (error) => {
            clearTimeout(timer);
            failed(error);
          }
        });
        ws.send(JSON.stringify({ ...frame, id }));
      });
    ws.once("open", () =>
      resolve({
        reset: () => request({ type: "reset" }),
        step: () => request({ type: "step", action: ACTION }),
        close: async () => {
          const closed = new Promise<void>((done) => {
            onClose = done;
          });
          if (ended !== undefined) return;
          // The server closes with 4404 after the reply; Close 1000 is for a server that does not.
          await request({ type: "op", op: "destroy" });
          ws.close(1000);
          await closed;
        }
      })
    );
  });

/** The session socket of a new counter session on `baseUrl` (http…). */
export const sessionSocketDial =
  (baseUrl: string): Dial =>
  async () => {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "counter" })
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`create ${res.status}: ${text.slice(0, 100)}`);
    const created = JSON.parse(text) as { token: string; ws_url: string };
    const createMs = performance.now() - started;
    return {
      createMs,
      socket: await openSessionSocket(created.ws_url, created.token)
    };
  };
