/** @module A WebSocket test client over the pool's SELF.fetch upgrade. */

import { expect } from "vitest";
import { createSignal } from "../shared/signal";
import { type Caller, call } from "./helpers";

export interface Frame {
  type: string;
  seq?: number;
  [key: string]: unknown;
}

export interface TestSocket {
  ws: WebSocket;
  frames: Frame[];
  protocol: string | null;
  /** Resolves with the frames once `predicate` holds for the list. */
  until(predicate: (frames: Frame[]) => boolean): Promise<Frame[]>;
  closed: Promise<{ code: number; reason: string }>;
  send(frame: unknown): void;
}

export const openSocket = async (
  sessionId: string,
  token: string | undefined,
  query = "",
  via: Caller = call
): Promise<TestSocket> => {
  const response = await via(`/v1/sessions/${sessionId}/ws${query}`, {
    headers: {
      Upgrade: "websocket",
      "Sec-WebSocket-Protocol": token
        ? `roost.v1, roost.token.${token}`
        : "roost.v1"
    }
  });
  expect(response.status).toBe(101);
  const ws = response.webSocket!;
  const frames: Frame[] = [];
  const signal = createSignal();
  let onClose!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => {
    onClose = r;
  });
  ws.addEventListener("message", (event) => {
    frames.push(JSON.parse(String(event.data)) as Frame);
    signal.notify();
  });
  ws.addEventListener("close", (event) => {
    onClose({ code: event.code, reason: event.reason });
    signal.notify();
  });
  ws.accept();
  let closedWith: { code: number; reason: string } | undefined;
  void closed.then((c) => {
    closedWith = c;
  });
  const until = async (predicate: (f: Frame[]) => boolean) => {
    await signal.until(() => predicate(frames), {
      what: "the expected frames",
      stop: () =>
        closedWith &&
        `socket closed (${closedWith.code} ${closedWith.reason}) before the expected frames arrived`
    });
    return frames;
  };
  return {
    ws,
    frames,
    protocol: response.headers.get("Sec-WebSocket-Protocol"),
    until,
    closed,
    send: (frame) =>
      ws.send(typeof frame === "string" ? frame : JSON.stringify(frame))
  };
};

export const events = (frames: Frame[]) =>
  frames.filter((f) => typeof f.seq === "number");
export const hasType = (type: string) => (frames: Frame[]) =>
  frames.some((f) => f.type === type);
export const countType = (type: string, n: number) => (frames: Frame[]) =>
  frames.filter((f) => f.type === type).length >= n;
