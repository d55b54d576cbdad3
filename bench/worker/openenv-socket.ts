/**
 * @module The bare Durable Object's OpenEnv socket held in the worker, as
 * Roost holds its OpenEnv channel: each frame is one RPC to the object,
 * and frames run one at a time, in order, since OpenEnv's client matches
 * answers by order alone.
 */

import type { FrameAnswer } from "./openenv-frames";

export interface FrameStub {
  open(): Promise<void>;
  openEnvFrame(text: string): Promise<FrameAnswer>;
}

export const workerSocket = async (stub: FrameStub): Promise<Response> => {
  await stub.open();
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  let queue = Promise.resolve();
  server.addEventListener("message", (event) => {
    const text = typeof event.data === "string" ? event.data : "";
    queue = queue
      .then(async () => {
        const answer = await stub.openEnvFrame(text);
        if (answer.reply !== undefined) server.send(answer.reply);
        if (answer.close) server.close(1000, "closed");
      })
      .catch((error: unknown) =>
        server.close(1011, String(error).slice(0, 120))
      );
  });
  return new Response(null, { status: 101, webSocket: client });
};
