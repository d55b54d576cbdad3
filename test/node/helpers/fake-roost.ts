/**
 * An in-process stand-in for a Roost server's streaming side: a `ws`
 * server on /v1/sessions/:id/ws that the test scripts frame by frame, and
 * a scripted GET /v1/sessions/:id/events.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { listenPort } from "./test-port";

export interface FakeConnection {
  socket: WebSocket;
  url: URL;
  protocols: string[];
  /** Frames the client sent, parsed. */
  received: Record<string, unknown>[];
  /** Resolves with the next frame the client sends. */
  next(): Promise<Record<string, unknown>>;
  send(frame: unknown): void;
}

export interface EventsRequest {
  after: number;
  /** The page's limit, when the client sent one. */
  limit?: number;
  authorization: string | undefined;
}

type EventsHandler = (request: EventsRequest) => {
  status: number;
  body: unknown;
};

export class FakeRoost {
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #waiting: {
    index: number;
    resolve: (c: FakeConnection) => void;
  }[] = [];
  readonly connections: FakeConnection[] = [];
  readonly eventsRequests: EventsRequest[] = [];
  onEvents: EventsHandler = () => ({
    status: 500,
    body: { error: { code: "internal", message: "not scripted" } }
  });
  /** When set, upgrades are answered with this HTTP status instead. */
  refuseUpgrades: number | undefined;

  private constructor() {
    this.#wss = new WebSocketServer({
      noServer: true,
      handleProtocols: () => "roost.v1"
    });
    this.#http = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://fake");
      if (!/^\/v1\/sessions\/[^/]+\/events$/.test(url.pathname)) {
        res.writeHead(404).end();
        return;
      }
      const limit = url.searchParams.get("limit");
      const request = {
        after: Number(url.searchParams.get("after") ?? 0),
        ...(limit === null ? {} : { limit: Number(limit) }),
        authorization: req.headers.authorization
      };
      this.eventsRequests.push(request);
      const { status, body } = this.onEvents(request);
      res
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify(body));
    });
    this.#http.on("upgrade", (req, socket, head) => {
      if (this.refuseUpgrades !== undefined) {
        socket.end(`HTTP/1.1 ${this.refuseUpgrades} Refused\r\n\r\n`);
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, req));
    });
  }

  static async start(): Promise<FakeRoost> {
    const fake = new FakeRoost();
    const port = await listenPort();
    await new Promise<void>((resolve) =>
      fake.#http.listen(port, "127.0.0.1", resolve)
    );
    return fake;
  }

  get baseUrl(): string {
    const { port } = this.#http.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Connection number `index` (0-based), once the client has made it. */
  connection(index: number): Promise<FakeConnection> {
    const made = this.connections[index];
    if (made) return Promise.resolve(made);
    return new Promise((resolve) => this.#waiting.push({ index, resolve }));
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    this.#wss.close();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  #accept(socket: WebSocket, req: IncomingMessage): void {
    const received: Record<string, unknown>[] = [];
    const waiters: ((f: Record<string, unknown>) => void)[] = [];
    let read = 0;
    socket.on("message", (data) => {
      received.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const w of waiters.splice(0)) w(received[read++]!);
    });
    const connection: FakeConnection = {
      socket,
      url: new URL(req.url ?? "/", "http://fake"),
      protocols: String(req.headers["sec-websocket-protocol"] ?? "")
        .split(",")
        .map((p) => p.trim()),
      received,
      next: () =>
        read < received.length
          ? Promise.resolve(received[read++]!)
          : new Promise((resolve) => waiters.push(resolve)),
      send: (frame) => socket.send(JSON.stringify(frame))
    };
    this.connections.push(connection);
    const index = this.connections.length - 1;
    for (const w of this.#waiting.filter((w) => w.index === index))
      w.resolve(connection);
  }
}

const AT = "2026-01-01T00:00:00.000Z";

/** A minimal valid event frame with this seq. */
export const stepEvent = (seq: number, type = "step") =>
  type === "step"
    ? {
        seq,
        type,
        episode: 1,
        at: AT,
        step: seq,
        reward: 0,
        done: false,
        truncated: false
      }
    : { seq, type, episode: 1, at: AT };

/** A session.snapshot frame whose log ends at `lastSeq`. */
export const snapshotFrame = (lastSeq: number) => ({
  type: "session.snapshot",
  status: {
    session_id: "s1",
    environment: "counter",
    episode: 1,
    steps: 0,
    reward: 0,
    return: 0,
    done: false,
    truncated: false,
    status: "running",
    created_at: AT
  },
  state: { count: 0 },
  keys: [],
  last_seq: lastSeq,
  // As the session says it: the log holds from seq 1, or nothing.
  oldest_seq: lastSeq === 0 ? 0 : 1
});
