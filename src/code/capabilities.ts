/**
 * @module What the model's code may reach: functions that live in the
 * session's isolate and reach the sandbox as RPC stubs. Each checks its
 * grant and its arguments on every call, and refuses once the run ended.
 */

import type { JsonObject, JsonValue } from "../json";
import { DEFAULT_LIMITS } from "../protocol/limits";
import { textWithin } from "../read-within";
import { jsonProblem } from "../state/json-check";
import { copyJsonObject, copyObjects } from "../store/checks";
import { type Result, result } from "../store/result";
import type { ToolContext } from "../tools/types";

/** What an environment grants its code tool; nothing is granted unless named. */
export interface CodeCapabilities {
  /** Read the environment store: `await store.keys()`, `store.find(tool, name)`, `store.recent(10)`. */
  store?: boolean;
  /**
   * Add Results: `await results.add({ name, objects, metadata?, llmMessage? })`.
   * Staged: stored only when the code finishes without error, so a failed
   * run stores nothing; the store reads of the same run do not see them.
   */
  results?: boolean;
  /** State keys the code may read: `await state.get("count")`. */
  state?: readonly string[];
  /** Hidden-store keys the code may read: `await hidden.get("key")`. Never any unless listed. */
  hidden?: readonly string[];
  /**
   * Hosts the code may `fetch` over HTTPS (`"api.example.com"`, or
   * `"*.example.com"` for its subdomains). The request is made from the
   * session, which checks the host; redirects are not followed.
   */
  network?: {
    allow: readonly string[];
    maxRequests?: number;
    maxBytes?: number;
  };
}

/** One run's capabilities, the Results they staged, and the switch that ends them. */
export interface Granted {
  capabilities: Record<string, unknown>;
  staged: Result[];
  end(): void;
}

const text = (value: unknown, what: string): string => {
  if (typeof value !== "string" || value.length === 0 || value.length > 256) {
    throw new TypeError(
      `${what} must be a non-empty string of at most 256 characters.`
    );
  }
  return value;
};

const count = (value: unknown, what: string, max: number): number => {
  if (
    !Number.isSafeInteger(value) ||
    (value as number) < 0 ||
    (value as number) > max
  ) {
    throw new TypeError(`${what} must be a whole number from 0 to ${max}.`);
  }
  return value as number;
};

const json = <T extends JsonValue>(value: unknown, what: string): T => {
  const problem = jsonProblem(value, what);
  if (problem !== undefined)
    throw new TypeError(`${problem}: only JSON is accepted.`);
  return value as T;
};

const hostAllowed = (host: string, allow: readonly string[]): boolean =>
  allow.some((entry) =>
    entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry
  );

/** A fetched body within the run's `maxBytes`, or a RangeError the code can catch. */
export const readBody = async (
  response: Response,
  maxBytes: number
): Promise<string> => {
  const text = await textWithin(response, maxBytes);
  if (text === undefined)
    throw new RangeError(`the response body passed ${maxBytes} bytes.`);
  return text;
};

/** The capabilities `grants` names, over `ctx`, for one run. */
export const grantCapabilities = (
  ctx: ToolContext,
  grants: CodeCapabilities,
  maxResults: number
): Granted => {
  let ended = false;
  const staged: Result[] = [];
  // Every capability goes through here: a stub the code kept past its run
  // (a timer, a promise left pending) reaches nothing once the run ended.
  const live =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      if (ended) {
        throw new Error(
          "this code run has ended: its capabilities no longer answer."
        );
      }
      return fn(...args);
    };
  const capabilities: Record<string, unknown> = {};
  if (grants.store) {
    const store = ctx.environment;
    capabilities.store = {
      keys: live(() => store.keys()),
      has: live((tool: unknown, name: unknown) =>
        store.has(text(tool, "tool"), text(name, "name"))
      ),
      find: live((tool: unknown, name: unknown, index?: unknown) =>
        index === undefined
          ? store.find(text(tool, "tool"), text(name, "name"))
          : store.find(
              text(tool, "tool"),
              text(name, "name"),
              Number.isSafeInteger(index) ? (index as number) : Number.NaN
            )
      ),
      slice: live(
        (tool: unknown, name: unknown, offset: unknown, limit: unknown) =>
          store.slice(
            text(tool, "tool"),
            text(name, "name"),
            count(offset, "offset", Number.MAX_SAFE_INTEGER),
            count(limit, "limit", 1000)
          )
      ),
      recent: live((limit: unknown) =>
        store.recent(count(limit, "limit", 1000))
      )
    };
  }
  if (grants.results) {
    capabilities.results = {
      add: live((init: unknown) => {
        if (staged.length >= maxResults) {
          throw new RangeError(`a run may add at most ${maxResults} Results.`);
        }
        const given = json<JsonObject>(init, "result");
        if (
          typeof given !== "object" ||
          given === null ||
          Array.isArray(given)
        ) {
          throw new TypeError(
            "results.add takes { name, objects, metadata?, llmMessage? }."
          );
        }
        // The store's own checks, at the store's default limit, here: a
        // Result refused only when stored would fail the call after the
        // Results before it were stored.
        const objects = copyObjects(
          given.objects,
          DEFAULT_LIMITS.objectsPerResult
        );
        staged.push(
          result({
            name: text(given.name ?? "default", "result.name"),
            objects,
            ...(given.metadata === undefined
              ? {}
              : {
                  metadata: copyJsonObject(given.metadata, "result.metadata")
                }),
            ...(given.llmMessage === undefined
              ? {}
              : { llmMessage: text(given.llmMessage, "result.llmMessage") })
          })
        );
        return staged.length;
      })
    };
  }
  const readable = (
    keys: readonly string[] | undefined,
    what: string,
    read: (key: string) => unknown
  ) => ({
    get: live((key: unknown) => {
      const k = text(key, "key");
      // An own-key list, never `in`: "__proto__" or "constructor" are keys too.
      if (!keys?.includes(k)) {
        throw new Error(
          `${what} key "${k}" is not granted to this code. Granted: ${keys?.join(", ") || "none"}.`
        );
      }
      return read(k);
    }),
    keys: live(() => [...(keys ?? [])])
  });
  if (grants.state !== undefined) {
    capabilities.state = readable(grants.state, "state", (k) =>
      (ctx.state as unknown as { get(key: string): unknown }).get(k)
    );
  }
  if (grants.hidden !== undefined) {
    capabilities.hidden = readable(grants.hidden, "hidden", (k) =>
      ctx.hidden.get(k)
    );
  }
  if (grants.network !== undefined) {
    const { allow, maxRequests = 10, maxBytes = 1024 * 1024 } = grants.network;
    let made = 0;
    capabilities.network = {
      fetch: live(async (request: unknown) => {
        const r = request as {
          url?: unknown;
          method?: unknown;
          headers?: unknown;
          body?: unknown;
        };
        const url = new URL(text(r.url, "url"));
        if (url.protocol !== "https:" || !hostAllowed(url.hostname, allow)) {
          throw new Error(
            `fetch of ${url.origin} refused: the code may reach only ${allow.join(", ") || "no host"} over https.`
          );
        }
        made += 1;
        if (made > maxRequests)
          throw new RangeError(`a run may fetch at most ${maxRequests} times.`);
        const response = await fetch(url, {
          method: text(r.method, "method"),
          headers: json<string[][]>(r.headers, "headers") as [string, string][],
          ...(typeof r.body === "string" ? { body: r.body } : {}),
          redirect: "manual",
          signal: ctx.signal
        });
        // forEach, not the iterator: it typechecks under the DOM library
        // too, for Node projects that import an environment with a code tool.
        const headers: [string, string][] = [];
        response.headers.forEach((value, name) => {
          headers.push([name, value]);
        });
        return {
          status: response.status,
          headers,
          body: await readBody(response, maxBytes)
        };
      })
    };
  }
  return {
    capabilities,
    staged,
    end: () => {
      ended = true;
    }
  };
};
