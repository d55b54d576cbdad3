/**
 * @module OpenEnv's view of a giant session: a socket re-attached to it
 * (`…/openenv/s/<session_id>.<token>/ws`, as `state()`'s
 * `reattach_base_url` names it) and one `state` frame, measured as sent.
 */

import WebSocket from "ws";
import type { SessionRef } from "./wire";

export interface OpenEnvState {
  values: Record<string, unknown>;
  values_next_cursor?: string;
  step_count: number;
  session_id: string;
}

/** Sends `{"type": "state"}` on a re-attached socket: its reply, and the reply's bytes. */
export const openEnvState = async (
  baseUrl: string,
  environment: string,
  s: SessionRef
): Promise<{ state: OpenEnvState; bytes: number }> => {
  const url = `${baseUrl.replace(/^http/, "ws")}/v1/environments/${environment}/openenv/s/${s.id}.${s.token}/ws`;
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const reply = new Promise<Buffer>((resolve, reject) => {
      ws.once("message", (data: Buffer) => resolve(data));
      ws.once("close", (code) =>
        reject(new Error(`The OpenEnv socket closed with ${code}.`))
      );
    });
    // Python's json.dumps spacing, as OpenEnv's client sends it.
    ws.send('{"type": "state"}');
    const data = await reply;
    const frame = JSON.parse(data.toString("utf8")) as {
      type: string;
      data: OpenEnvState;
    };
    if (frame.type !== "state") {
      throw new Error(
        `OpenEnv answered ${data.toString("utf8").slice(0, 300)}`
      );
    }
    return { state: frame.data, bytes: data.byteLength };
  } finally {
    ws.close();
  }
};
