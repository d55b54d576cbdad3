/**
 * @module Plain fetch against a server, as a user's script makes its
 * calls: the credential sent one of the ways Roost takes it, and every
 * answer kept as raw text, so a test can search what a credential was
 * ever shown.
 */
import { expect } from "vitest";

/** How a call presents its credential. */
export type Credential =
  | { bearer: string }
  | { apiKey: string }
  | { none: true };

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever field it asserts on.
  body: any;
}

export interface Seen {
  /** Who asked: the scope of the token, or "key", "none". */
  who: string;
  method: string;
  path: string;
  text: string;
}

const headersOf = (credential: Credential): Record<string, string> =>
  "bearer" in credential
    ? { Authorization: `Bearer ${credential.bearer}` }
    : "apiKey" in credential
      ? { "X-API-Key": credential.apiKey }
      : {};

const whoOf = (credential: Credential): string => {
  if ("none" in credential) return "none";
  if ("apiKey" in credential) return "key";
  // A scoped token starts with its scope; a session's first one with "v1.".
  const scope = credential.bearer.split(".")[0]!;
  return scope === "v1" ? "control" : scope;
};

/** `baseUrl` may be read late: a file's server is started after its calls are made. */
export const scopedHttp = (baseUrl: string | (() => string)) => {
  const base = typeof baseUrl === "string" ? () => baseUrl : baseUrl;
  /** Every answer, in order. */
  const seen: Seen[] = [];
  const call = async (
    method: string,
    path: string,
    credential: Credential,
    body?: unknown
  ): Promise<Answer> => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...headersOf(credential),
        ...(body === undefined ? {} : { "Content-Type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
    const text = await res.text();
    seen.push({ who: whoOf(credential), method, path, text });
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed };
  };
  const get = (path: string, credential: Credential) =>
    call("GET", path, credential);
  const post = (path: string, credential: Credential, body: unknown = {}) =>
    call("POST", path, credential, body);

  /** Creates a session of `environment` with the API key and resets it with its own (control) token. */
  const createSession = async (environment: string, apiKey: string) => {
    const made = await post("/v1/sessions", { apiKey }, { environment });
    expect(made.status, made.text).toBe(201);
    const created = made.body as {
      session_id: string;
      token: string;
      ws_url: string;
    };
    const reset = await post(`/v1/sessions/${created.session_id}/reset`, {
      bearer: created.token
    });
    expect(reset.status, reset.text).toBe(200);
    return created;
  };

  /** A token of `scope` for the session, minted with `with`. */
  const mint = async (
    id: string,
    scope: string,
    with_: Credential,
    ttl_s?: number
  ): Promise<string> => {
    const minted = await post(`/v1/sessions/${id}/tokens`, with_, {
      scope,
      ...(ttl_s === undefined ? {} : { ttl_s })
    });
    expect(minted.status, minted.text).toBe(201);
    expect(minted.body.scope).toBe(scope);
    return minted.body.token as string;
  };

  return { seen, call, get, post, createSession, mint };
};

/** Asserts a refusal: its status and the code of Roost's error body. */
export const expectError = (
  answer: Answer,
  status: number,
  code: string,
  neededScope?: string
) => {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body?.error?.code, answer.text).toBe(code);
  expect(typeof answer.body.error.message).toBe("string");
  if (neededScope !== undefined)
    expect(answer.body.error.details?.scope, answer.text).toBe(neededScope);
};

/** The counter's incr as a step action. */
export const incrAction = (id = "c1") => ({
  action: {
    tool_calls: [
      { id, type: "function", function: { name: "incr", arguments: "{}" } }
    ]
  }
});

/** A step of the catalog's query, whose run writes the hidden store. */
export const catalogQuery = (id: string) => ({
  action: {
    tool_calls: [
      {
        id,
        type: "function",
        function: {
          name: "query",
          arguments: JSON.stringify({ collection: "products", text: "cat" })
        }
      }
    ]
  }
});
