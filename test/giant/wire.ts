/**
 * @module Every HTTP request the giant-session checks make, through one
 * place that refuses what a read must never do: answer 5xx, or answer more
 * than the 4 MiB a response may carry. It keeps the largest answer per
 * route for the report.
 */

import { MAX_RESPONSE_BYTES } from "./plan";

export interface Answer {
  status: number;
  headers: Headers;
  /** Bytes of the body as received. */
  bytes: number;
  text: string;
}

/** A session as its routes need it. */
export interface SessionRef {
  id: string;
  token: string;
  wsUrl: string;
}

/** The largest answer seen on a route, and how many it gave. */
export interface RouteStats {
  route: string;
  requests: number;
  bytes: number;
  largest: number;
  largestPath: string;
}

/** Refused mutations wait this long at most before a retry (the rate limit's Retry-After). */
const MAX_RETRY_WAIT_MS = 5_000;

/** A path's route: ids and cursors dropped, query parameter names kept. */
const routeOf = (method: string, path: string): string => {
  const [pathname = "", query = ""] = path.split("?");
  const shape = pathname
    .replace(/\/[0-9a-f]{64}(?=\/|$)/, "/:id")
    .replace(/\/environment\/[^/?]+\/[^/?]+$/, "/environment/:tool/:name");
  const names = [...new URLSearchParams(query).keys()].sort();
  return `${method} ${shape}${names.length ? `?${names.join("&")}` : ""}`;
};

export class Wire {
  readonly #routes = new Map<string, RouteStats>();

  constructor(readonly baseUrl: string) {}

  /**
   * One request; throws on a 5xx or a body over the maximum, and retries
   * after a 429 (the per-session rate limit). Any other status is answered.
   */
  async send(
    method: "GET" | "POST",
    path: string,
    options: { body?: unknown; token?: string; headers?: object } = {}
  ): Promise<Answer> {
    for (;;) {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(options.body === undefined
            ? {}
            : { "content-type": "application/json" }),
          ...(options.token
            ? { authorization: `Bearer ${options.token}` }
            : {}),
          ...options.headers
        },
        ...(options.body === undefined
          ? {}
          : { body: JSON.stringify(options.body) })
      });
      const body = Buffer.from(await res.arrayBuffer());
      const answer = {
        status: res.status,
        headers: res.headers,
        bytes: body.byteLength,
        text: body.toString("utf8")
      };
      this.#note(method, path, answer);
      if (answer.status !== 429) return answer;
      const wait = Number(res.headers.get("retry-after") ?? "1") * 1000;
      await new Promise((r) =>
        setTimeout(r, Math.min(wait, MAX_RETRY_WAIT_MS))
      );
    }
  }

  /** A request that must succeed (2xx): its JSON. */
  async json<T>(
    method: "GET" | "POST",
    path: string,
    options: { body?: unknown; token?: string; headers?: object } = {}
  ): Promise<T> {
    const answer = await this.send(method, path, options);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(
        `${method} ${path.slice(0, 200)} → ${answer.status}: ${answer.text.slice(0, 300)}`
      );
    }
    return (answer.text === "" ? undefined : JSON.parse(answer.text)) as T;
  }

  /** A session's GET, with its token. */
  get<T>(s: SessionRef, path: string): Promise<T> {
    return this.json<T>("GET", `/v1/sessions/${s.id}${path}`, {
      token: s.token
    });
  }

  /** A session's GET that must succeed, with the size of its answer. */
  async page<T>(
    s: SessionRef,
    path: string
  ): Promise<{ value: T; bytes: number }> {
    const full = `/v1/sessions/${s.id}${path}`;
    const answer = await this.send("GET", full, { token: s.token });
    if (answer.status !== 200) {
      throw new Error(
        `GET ${full.slice(0, 200)} → ${answer.status}: ${answer.text.slice(0, 300)}`
      );
    }
    return { value: JSON.parse(answer.text) as T, bytes: answer.bytes };
  }

  /** A session's POST, with its token. */
  post<T>(
    s: SessionRef,
    path: string,
    body: unknown,
    headers: object = {}
  ): Promise<T> {
    return this.json<T>("POST", `/v1/sessions/${s.id}${path}`, {
      body,
      token: s.token,
      headers
    });
  }

  /** Routes by name, with their request counts and largest answers. */
  stats(): RouteStats[] {
    return [...this.#routes.values()];
  }

  #note(method: string, path: string, answer: Answer): void {
    const route = routeOf(method, path);
    const stats = this.#routes.get(route) ?? {
      route,
      requests: 0,
      bytes: 0,
      largest: 0,
      largestPath: ""
    };
    stats.requests++;
    stats.bytes += answer.bytes;
    if (answer.bytes > stats.largest) {
      stats.largest = answer.bytes;
      stats.largestPath = path.replace(/[0-9a-f]{64}/, ":id").slice(0, 200);
    }
    this.#routes.set(route, stats);
    if (answer.status >= 500) {
      throw new Error(
        `${method} ${path.slice(0, 200)} → ${answer.status} (${answer.bytes} bytes): ${answer.text.slice(0, 300)}`
      );
    }
    if (answer.bytes > MAX_RESPONSE_BYTES) {
      throw new Error(
        `${method} ${path.slice(0, 200)} → ${answer.status} with ${answer.bytes} bytes, over the ${MAX_RESPONSE_BYTES} a response may carry.`
      );
    }
  }
}
