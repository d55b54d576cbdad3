/**
 * @module A socket as OpenEnv's EnvClient opens one (the `ws` package, no
 * subprotocol, no headers, `/ws` on the base URL), and what its clients
 * read of an observation.
 */
import { expect } from "vitest";
import WebSocket from "ws";
import { createSignal } from "../../shared/signal";

export interface Reply {
  type: string;
  data: Record<string, unknown>;
}

/** A socket as EnvClient opens it: `/ws` on the base, no subprotocol, deflate offered. */
export const connect = async (base: string) => {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`);
  const replies: Reply[] = [];
  const signal = createSignal();
  let closed: { code: number; at: number } | undefined;
  ws.on("message", (data) => {
    replies.push(JSON.parse(String(data)) as Reply);
    signal.notify();
  });
  ws.on("close", (code) => {
    closed = { code, at: Date.now() };
    signal.notify();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let read = 0;
  return {
    ws,
    /** One request, one reply: what `_send_and_receive` does. */
    request: async (text: string | Buffer): Promise<Reply> => {
      ws.send(text);
      const want = read + 1;
      await signal.until(() => replies.length >= want, {
        what: `a reply to ${String(text).slice(0, 60)}`,
        stop: () => (closed ? `closed with ${closed.code}` : undefined)
      });
      read = want;
      return replies[want - 1]!;
    },
    /** `disconnect()`: the close frame, then a Close 1000 without reading a reply. */
    close: async () => {
      const sent = Date.now();
      ws.send('{"type": "close"}');
      ws.close(1000);
      await signal.until(() => closed !== undefined, { what: "the close" });
      return {
        code: closed!.code,
        ms: closed!.at - sent,
        extra: replies.length - read
      };
    },
    drop: () => ws.terminate(),
    closedWith: () => closed?.code
  };
};

/** What GenericEnvClient._parse_result and MCPClientBase read of an observation reply. */
export const expectObservation = (reply: Reply) => {
  expect(reply.type).toBe("observation");
  const { observation, reward, done } = reply.data;
  expect(typeof observation).toBe("object");
  expect(observation).not.toBeNull();
  expect(reward === null || typeof reward === "number").toBe(true);
  expect(typeof done).toBe("boolean");
  return reply.data as {
    observation: Record<string, unknown>;
    reward: number | null;
    done: boolean;
  };
};
