/** @module The session's WebSocket, kept open: reconnects with backoff and resumes after the last seq seen. */

import type { Credentials } from "./api";

export interface Frame {
  type: string;
  seq?: number;
  [key: string]: unknown;
}

export interface Live {
  close(): void;
}

export const connectLive = (
  session: Credentials,
  handlers: {
    onFrame(frame: Frame): void;
    onStatus(status: "open" | "reconnecting" | "closed", detail?: string): void;
  }
): Live => {
  let lastSeq: number | undefined;
  let socket: WebSocket | undefined;
  let stopped = false;
  let delay = 250;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const after = lastSeq === undefined ? "" : `?after=${lastSeq}`;
    const ws = new WebSocket(
      `${scheme}//${location.host}/v1/sessions/${encodeURIComponent(session.id)}/ws${after}`,
      // The token travels as a subprotocol: browsers cannot set headers here.
      ["roost.v1", `roost.token.${session.token}`]
    );
    socket = ws;
    ws.onopen = () => {
      delay = 250;
      handlers.onStatus("open");
    };
    const receive = (frame: Frame) => {
      if (frame.type === "session.snapshot") {
        lastSeq = frame.last_seq as number;
      } else if (typeof frame.seq === "number") {
        // A replay after a reconnect may repeat what was already shown.
        if (lastSeq !== undefined && frame.seq <= lastSeq) return;
        lastSeq = frame.seq;
      }
      handlers.onFrame(frame);
    };
    ws.onmessage = (message) => {
      const frame = JSON.parse(String(message.data)) as Frame;
      // A step's events arrive together in one batch message.
      if (frame.type === "batch") (frame.events as Frame[]).forEach(receive);
      else receive(frame);
    };
    ws.onclose = (event) => {
      if (stopped || socket !== ws) return;
      if (event.code >= 4400 && event.code < 4500) {
        // Refused (bad token, gone): retrying cannot help.
        handlers.onStatus("closed", `${event.code} ${event.reason}`);
        return;
      }
      handlers.onStatus("reconnecting");
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 10_000);
    };
  };
  open();
  return {
    close: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      socket?.close();
    }
  };
};
