/**
 * @module One client WebSocket of a benchmark: each frame goes to whoever
 * waits for it, matched on raw bytes first, with its arrival time; a frame's
 * own `type` is found without parsing a large frame, so the client's own
 * cost stays out of the figures.
 */

import WebSocket from "ws";

/** How long any awaited frame may take before the scenario gives up. */
const FRAME_TIMEOUT_MS = 60_000;

/** A frame and when it arrived. */
export interface Arrival {
  at: number;
  data: Buffer;
}

interface Waiter {
  match: (data: Buffer) => boolean;
  done: (arrival: Arrival) => void;
}

/** One client socket; frames go to whoever waits for them, matched on raw bytes first. */
export class Peer {
  readonly #waiting = new Set<Waiter>();
  #recorded: number[] | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      const at = performance.now();
      this.#recorded?.push(data.byteLength);
      for (const waiter of this.#waiting) {
        if (waiter.match(data)) {
          this.#waiting.delete(waiter);
          waiter.done({ at, data });
        }
      }
    });
  }

  /** Opens a socket, resolved once a frame that `ready` accepts arrived. */
  static open(
    url: string,
    protocols: string[],
    ready: (data: Buffer) => boolean
  ): Promise<Peer> {
    const ws = new WebSocket(url, protocols, {
      perMessageDeflate: false,
      skipUTF8Validation: true
    });
    const peer = new Peer(ws);
    return new Promise((resolve, reject) => {
      ws.on("error", reject);
      peer
        .next(ready, `the first frames from ${url}`)
        .then(() => resolve(peer), reject);
    });
  }

  /** The next frame `match` accepts. */
  next(match: (data: Buffer) => boolean, what: string): Promise<Arrival> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(waiter);
        reject(new Error(`No ${what} within ${FRAME_TIMEOUT_MS / 1000} s.`));
      }, FRAME_TIMEOUT_MS);
      const waiter: Waiter = {
        match,
        done: (arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        }
      };
      this.#waiting.add(waiter);
    });
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** Notes the size of every frame from now on; the answer stops and reads it. */
  record(): () => number[] {
    const sizes: number[] = [];
    this.#recorded = sizes;
    return () => {
      this.#recorded = null;
      return sizes;
    };
  }
}

export const has = (data: Buffer, text: string): boolean => data.includes(text);

/** Bytes at each end of a frame where its own `type` is looked for. */
const EDGE = 128;

/**
 * Whether a frame's own `type` is `type`, looking only at its first and
 * last bytes: both protocols build frames as object literals with `type`
 * written first or last (the SDK's state broadcast is `{ state, type }`).
 * A large frame (the SDK sends its whole state) is neither scanned nor
 * parsed, so the client's own cost stays out of the figures.
 */
export const typeIs = (data: Buffer, type: string): boolean => {
  const needle = `"type":"${type}"`;
  if (data.byteLength <= 2 * EDGE) return data.includes(needle);
  return (
    data.subarray(0, EDGE).includes(needle) ||
    data.subarray(-EDGE).includes(needle)
  );
};

export const parse = <T>(data: Buffer): T =>
  JSON.parse(data.toString("utf8")) as T;
