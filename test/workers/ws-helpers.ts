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
  /** Every frame, a batch's events in their place, one entry each. */
  frames: Frame[];
  /** Every message as it came, batches whole. */
  messages: Frame[];
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
  const messages: Frame[] = [];
  const signal = createSignal();
  let onClose!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => {
    onClose = r;
  });
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as Frame;
    messages.push(message);
    if (message.type === "batch") frames.push(...(message.events as Frame[]));
    else frames.push(message);
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
    messages,
    protocol: response.headers.get("Sec-WebSocket-Protocol"),
    until,
    closed,
    send: (frame) =>
      ws.send(typeof frame === "string" ? frame : JSON.stringify(frame))
  };
};

/** The frames that are events of the log (those with a seq); session-helpers.ts's `events` reads the log itself. */
export const eventFrames = (frames: Frame[]) =>
  frames.filter((f) => typeof f.seq === "number");
/** The seqs of the event frames, in order. */
export const seqs = (frames: Frame[]) => eventFrames(frames).map((f) => f.seq);
export const hasType = (type: string) => (frames: Frame[]) =>
  frames.some((f) => f.type === type);
export const countType = (type: string, n: number) => (frames: Frame[]) =>
  frames.filter((f) => f.type === type).length >= n;

export interface Follower {
  /** Every event seen, each once, in seq order. */
  events: Frame[];
  /** How many times the socket was opened again after closing. */
  reconnects: number;
  /** Resolves once an event at or past `seq` has been seen. */
  reached(seq: number): Promise<Frame[]>;
  stop(): void;
}

/**
 * Follows a session's events across drops as a client should: when its
 * socket closes it connects again with `?after=<last seq seen>`, and keeps
 * only events past that seq.
 */
export const follow = async (
  sessionId: string,
  token: string
): Promise<Follower> => {
  const seen: Frame[] = [];
  const signal = createSignal();
  let stopped = false;
  let current: TestSocket | undefined;
  const follower: Follower = {
    events: seen,
    reconnects: 0,
    reached: async (seq) => {
      await signal.until(() => (seen.at(-1)?.seq ?? 0) >= seq, {
        what: `event ${seq} on the following socket`
      });
      return seen;
    },
    stop: () => {
      stopped = true;
      current?.ws.close();
    }
  };
  const connect = async (): Promise<void> => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        const after = seen.at(-1)?.seq ?? 0;
        const sock = await openSocket(sessionId, token, `?after=${after}`);
        current = sock;
        let taken = 0;
        const take = () => {
          for (; taken < sock.frames.length; taken++) {
            const frame = sock.frames[taken]!;
            if (
              typeof frame.seq === "number" &&
              frame.seq > (seen.at(-1)?.seq ?? 0)
            )
              seen.push(frame);
          }
          signal.notify();
        };
        sock.ws.addEventListener("message", take);
        void sock.closed.then(() => {
          take();
          if (stopped) return;
          follower.reconnects++;
          void connect();
        });
        return;
      } catch (error) {
        // The object may be mid-restart after an abort: try again shortly.
        if (attempt >= 50) throw error;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await connect();
  return follower;
};
