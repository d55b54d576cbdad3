/** @module One Chrome DevTools protocol session with workerd's isolate, through `wrangler dev --inspector-port`. */

import WebSocket from "ws";

export interface DevTools {
  /** Sends a command; answers its result, or rejects with the protocol's error. */
  send<T>(method: string, params?: object): Promise<T>;
  close(): void;
}

/** The first target `wrangler dev --inspector-port <port>` lists: locally the worker and its objects share one isolate. */
export const workerTarget = async (port: number): Promise<string> => {
  const list = (await (
    await fetch(`http://127.0.0.1:${port}/json`)
  ).json()) as { webSocketDebuggerUrl: string }[];
  const url = list[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`No inspector target on ${port}.`);
  return url;
};

export const devtools = async (url: string): Promise<DevTools> => {
  const ws = new WebSocket(url, { maxPayload: 1024 * 1024 * 1024 });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let next = 0;
  const waiting = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  ws.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as {
      id?: number;
      result?: unknown;
      error?: unknown;
    };
    if (message.id === undefined) return;
    const waiter = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) waiter?.reject(new Error(JSON.stringify(message.error)));
    else waiter?.resolve(message.result);
  });
  const send = <T>(method: string, params: object = {}): Promise<T> => {
    const id = ++next;
    ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) =>
      waiting.set(id, { resolve: resolve as (x: unknown) => void, reject })
    );
  };
  return { send, close: () => ws.close() };
};
