/** @module The bench's HTTP and WebSocket client: sessions, steps, seeding, the baseline and the abort routes. */

import WebSocket from "ws";
import { benchObject } from "./objects";

export interface BenchSession {
  id: string;
  token: string;
  wsUrl: string;
}

/** An HTTP answer of any status. */
export interface Answer {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

/** A non-2xx answer, thrown by the methods that expect 2xx. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
  }
}

/** A step body with one call of `tool`. */
export const stepBody = (
  tool: string,
  args: Record<string, unknown> = {}
): unknown => ({
  action: {
    role: "assistant",
    tool_calls: [
      {
        id: "c1",
        type: "function",
        function: { name: tool, arguments: JSON.stringify(args) }
      }
    ]
  }
});

/** Objects per store-add request: the default objects-per-Result limit. */
const SEED_BATCH = 1000;

export class Api {
  constructor(readonly baseUrl: string) {}

  /**
   * One request, answered whatever its status; throws only when no answer
   * came (a refused or reset connection). `body` is sent as JSON.
   */
  async send(
    method: "GET" | "POST",
    path: string,
    options: {
      body?: unknown;
      token?: string;
      headers?: Record<string, string>;
    } = {}
  ): Promise<Answer> {
    const { body, token, headers = {} } = options;
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
    return {
      status: res.status,
      ok: res.ok,
      headers: res.headers,
      text: await res.text()
    };
  }

  /** Sends a request; throws with the answer on anything but 2xx. */
  async json(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    token?: string
  ): Promise<unknown> {
    const answer = await this.send(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(token === undefined ? {} : { token })
    });
    if (!answer.ok) {
      throw new HttpError(
        answer.status,
        `${method} ${path} → ${answer.status}: ${answer.text.slice(0, 500)}`
      );
    }
    return answer.text === "" ? undefined : JSON.parse(answer.text);
  }

  /** POSTs JSON; throws with the answer on anything but 2xx. */
  post(path: string, body: unknown, token?: string): Promise<unknown> {
    return this.json("POST", path, body, token);
  }

  /** The cheapest round trip: the worker answers without waking any object. */
  async health(): Promise<void> {
    const res = await fetch(`${this.baseUrl}/health`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET /health → ${res.status}`);
  }

  async create(environment = "bench", task?: unknown): Promise<BenchSession> {
    const r = (await this.post("/v1/sessions", {
      environment,
      ...(task === undefined ? {} : { task })
    })) as {
      session_id: string;
      token: string;
      ws_url: string;
    };
    return { id: r.session_id, token: r.token, wsUrl: r.ws_url };
  }

  /** A session of dataset task `taskIndex`: its ended episodes count in the server's task statistics. */
  async createIndexed(
    environment: string,
    taskIndex: number
  ): Promise<BenchSession> {
    const r = (await this.post("/v1/sessions", {
      environment,
      task_index: taskIndex
    })) as { session_id: string; token: string; ws_url: string };
    return { id: r.session_id, token: r.token, wsUrl: r.ws_url };
  }

  reset(s: BenchSession, task?: unknown): Promise<unknown> {
    return this.post(
      `/v1/sessions/${s.id}/reset`,
      task === undefined ? {} : { task },
      s.token
    );
  }

  /** The session's status: episode, steps, reward, done, … */
  status(s: BenchSession): Promise<{ episode: number; steps: number }> {
    return this.json(
      "GET",
      `/v1/sessions/${s.id}`,
      undefined,
      s.token
    ) as Promise<{ episode: number; steps: number }>;
  }

  /** The session's typed state (the transcript excluded). */
  async state(s: BenchSession): Promise<Record<string, unknown>> {
    const r = (await this.json(
      "GET",
      `/v1/sessions/${s.id}/state`,
      undefined,
      s.token
    )) as { state: Record<string, unknown> };
    return r.state;
  }

  step(
    s: BenchSession,
    tool: string,
    args: Record<string, unknown> = {}
  ): Promise<unknown> {
    return this.post(
      `/v1/sessions/${s.id}/step`,
      stepBody(tool, args),
      s.token
    );
  }

  /**
   * A tools/call over MCP as a 2026-07-28 client sends it; `tasks` declares
   * the tasks extension, which has the server start the call as a task.
   */
  async mcpCall(
    s: BenchSession,
    tool: string,
    tasks = false
  ): Promise<unknown> {
    const answer = await this.send("POST", `/v1/sessions/${s.id}/mcp`, {
      token: s.token,
      headers: {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool
      },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: tool,
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": tasks
              ? { extensions: { "io.modelcontextprotocol/tasks": {} } }
              : {}
          }
        }
      }
    });
    const reply = answer.ok ? JSON.parse(answer.text) : undefined;
    if (reply?.result === undefined) {
      throw new HttpError(
        answer.status,
        `MCP tools/call ${tool} → ${answer.status}: ${answer.text.slice(0, 500)}`
      );
    }
    return reply.result;
  }

  /**
   * Adds `count` objects (numbered from `first`, so all differ) under
   * put/items, a thousand per request. Answers the JSON bytes sent.
   */
  async seed(s: BenchSession, count: number, first = 0): Promise<number> {
    let sent = 0;
    for (let done = 0; done < count; done += SEED_BATCH) {
      const objects = Array.from(
        { length: Math.min(SEED_BATCH, count - done) },
        (_, i) => benchObject(first + done + i)
      );
      sent += JSON.stringify(objects).length;
      await this.post(
        `/v1/sessions/${s.id}/environment/put/items`,
        { objects },
        s.token
      );
    }
    return sent;
  }

  /** Drops the session's object; the next request reloads it from storage. */
  abort(s: BenchSession): Promise<unknown> {
    return this.post(`/bench/abort/${s.id}`, {});
  }

  /** One round trip to the bare Durable Object `name`, appending one row. */
  baseline(name: string, body: unknown): Promise<unknown> {
    return this.post(`/bench/baseline/${name}`, body);
  }

  baselineAbort(name: string): Promise<unknown> {
    return this.post(`/bench/baseline/${name}/abort`, {});
  }
}

/** A subscribed socket that notes when frames of a type arrive. */
export interface Subscriber {
  ws: WebSocket;
  /** Resolves at the next frame whose raw text contains `"type":"<type>"`. */
  next(type: string): Promise<{ at: number; bytes: number }>;
  /** The raw size of the frame `open` waited for (a session's snapshot). */
  firstBytes: number;
}

export interface OpenOptions {
  /** Resolve once a frame of this type arrived (a session's snapshot), not at open. */
  waitFor?: string;
  /**
   * Offer permessage-deflate, as browsers do. Off by default: a hundred
   * clients simulated in one Node process would mostly measure their own
   * zlib (ws inflates at most ten frames at a time per process).
   */
  deflate?: boolean;
}

/** Opens a socket that reports frame arrivals. */
export const open = (
  url: string,
  protocols: string[],
  options: OpenOptions = {}
): Promise<Subscriber> =>
  new Promise((resolve, reject) => {
    const { waitFor, deflate = false } = options;
    const ws = new WebSocket(url, protocols, {
      perMessageDeflate: deflate,
      skipUTF8Validation: true
    });
    const waiting = new Map<
      string,
      (x: { at: number; bytes: number }) => void
    >();
    const next = (type: string) =>
      new Promise<{ at: number; bytes: number }>((r) => {
        waiting.set(`"type":"${type}"`, r);
      });
    ws.on("message", (data: Buffer) => {
      const at = performance.now();
      // A substring test, not a parse: the client should cost as little as possible.
      const text = data.toString("utf8");
      for (const [needle, done] of waiting) {
        if (text.includes(needle)) {
          waiting.delete(needle);
          done({ at, bytes: data.byteLength });
        }
      }
    });
    ws.once("error", reject);
    if (waitFor === undefined) {
      ws.once("open", () => resolve({ ws, next, firstBytes: 0 }));
    } else {
      void next(waitFor).then(({ bytes }) =>
        resolve({ ws, next, firstBytes: bytes })
      );
    }
  });

/** A session's socket, with the token as subprotocol, open once its snapshot arrived. */
export const subscribe = (
  s: BenchSession,
  options: { deflate?: boolean } = {}
): Promise<Subscriber> =>
  open(s.wsUrl, ["roost.v1", `roost.token.${s.token}`], {
    waitFor: "session.snapshot",
    ...options
  });
