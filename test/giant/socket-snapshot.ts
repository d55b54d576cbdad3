/** @module The session socket's first frame, read raw with the ws package. */
import { expect } from "vitest";
import WebSocket from "ws";
import type { SessionRef } from "./wire";

/** The socket's first frame on connect: the snapshot, and its bytes. */
export const socketSnapshot = async (s: SessionRef) => {
  const ws = new WebSocket(s.wsUrl, ["roost.v1", `roost.token.${s.token}`]);
  try {
    const data = await new Promise<Buffer>((resolve, reject) => {
      ws.once("message", (d: Buffer) => resolve(d));
      ws.once("error", reject);
      ws.once("close", (code) => reject(new Error(`closed with ${code}`)));
    });
    const frame = JSON.parse(data.toString("utf8")) as {
      type: string;
      state: unknown;
      keys: unknown[];
      last_seq: number;
      truncated?: true;
    };
    expect(frame.type).toBe("session.snapshot");
    return { frame, bytes: data.byteLength };
  } finally {
    ws.close();
  }
};
