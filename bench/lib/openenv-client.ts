/**
 * @module One OpenEnv socket as a trainer's `EnvClient` opens it: reset,
 * steps each waiting for its answer, then the close frame and a Close
 * 1000. The frames are the Python client's own text (json.dumps, with its
 * spaces), as test/node/openenv.test.ts sends them.
 */

import WebSocket from "ws";
import { type Dial, TIMEOUT_MS } from "./socket-waves";

export const RESET = '{"type": "reset", "data": {}}';
export const STEP =
  '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}';
export const CLOSE = '{"type": "close"}';

export interface OpenEnvSocket {
  /** Sends a frame and answers the next answer: OpenEnv's client matches them by order alone. */
  request(text: string): Promise<string>;
  /** OpenEnv's disconnect(): the close frame, then a Close 1000; resolves once closed. */
  close(): Promise<void>;
}

export const openSocket = (url: string) =>
  new Promise<OpenEnvSocket>((resolve, reject) => {
    // As EnvClient connects: no subprotocol, no headers, deflate offered.
    const ws = new WebSocket(url, { handshakeTimeout: TIMEOUT_MS });
    const answers: string[] = [];
    let waiter: ((answer: string) => void) | undefined;
    let ended: Error | undefined;
    let onClose: (() => void) | undefined;
    const fail = (error: Error) => {
      ended ??= error;
      reject(error);
      onClose?.();
    };
    ws.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      if (waiter === undefined) answers.push(text);
      else waiter(text);
    });
    ws.once("error", fail);
    ws.once("close", (code) => fail(new Error(`closed with ${code}`)));
    ws.once("open", () =>
      resolve({
        request: (text) =>
          new Promise((answered, failed) => {
            if (ended !== undefined) return failed(ended);
            ws.send(text);
            const early = answers.shift();
            if (early !== undefined) return answered(early);
            const timer = setTimeout(
              () => failed(new Error("no answer in time")),
              TIMEOUT_MS
            );
            waiter = (answer) => {
              clearTimeout(timer);
              waiter = undefined;
              answered(answer);
            };
            onClose = () => {
              clearTimeout(timer);
              failed(ended);
            };
          }),
        close: () =>
          new Promise((closed) => {
            onClose = () => closed();
            ws.send(CLOSE);
            ws.close(1000);
          })
      })
    );
  });

/** An answer's failure, if it is not an observation. */
const refusal = (answer: string): string | undefined => {
  const frame = JSON.parse(answer) as {
    type?: string;
    data?: { code?: string; message?: string };
  };
  return frame.type === "observation"
    ? undefined
    : `${frame.type} ${frame.data?.code ?? ""}: ${frame.data?.message ?? ""}`.trim();
};

/** OpenEnv's socket as a contender: the socket makes its own session at connect. */
export const openEnvDial =
  (url: string): Dial =>
  async () => {
    const socket = await openSocket(url);
    const ask = async (text: string) => {
      const refused = refusal(await socket.request(text));
      if (refused !== undefined) throw new Error(refused);
    };
    return {
      createMs: 0,
      socket: {
        reset: () => ask(RESET),
        step: () => ask(STEP),
        close: () => socket.close()
      }
    };
  };
