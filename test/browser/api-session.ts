/**
 * @module Sessions driven over the API for the inspector to show: created,
 * reset and stepped with the given tool calls (paced under the rate limit
 * for bursts), and the inspector attached to one in a new page.
 */
import { expect, inject } from "vitest";
import type {} from "../node/global-setup";
import type { Browser } from "./browser";

const base = inject("baseUrl");

export interface Session {
  session_id: string;
  token: string;
}

export const post = async <T>(path: string, body: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as T;
};

export const create = (environment: string, task?: unknown) =>
  post<Session>("/v1/sessions", {
    environment,
    ...(task === undefined ? {} : { task })
  });

export const reset = (s: Session) =>
  post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);

let callIds = 0;
/** The id of the last tool call `step` or `incrPaced` sent (`c<n>`'s n). */
export const lastCallId = () => callIds;
/** One step of the given tool calls, each `[name, arguments]`. */
export const step = <
  T = {
    reward: number;
    done: boolean;
    reward_components?: Record<string, unknown>;
  }
>(
  s: Session,
  ...calls: [string, unknown][]
) =>
  post<T>(
    `/v1/sessions/${s.session_id}/step`,
    {
      action: {
        tool_calls: calls.map(([name, args]) => ({
          id: `c${++callIds}`,
          type: "function",
          function: { name, arguments: args }
        }))
      }
    },
    s.token
  );

/**
 * A POST to a session route, waiting out the per-session rate limit (50
 * mutating calls a second) when a burst runs into it.
 */
export const paced = async (s: Session, path: string, body: unknown) => {
  for (;;) {
    const res = await fetch(`${base}/v1/sessions/${s.session_id}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${s.token}`
      },
      body: JSON.stringify(body)
    });
    if (res.status !== 429) {
      expect(res.status, await res.text()).toBe(200);
      return;
    }
    const refused = (await res.json()) as {
      error: { details: { retry_after_seconds: number } };
    };
    await new Promise((r) =>
      setTimeout(r, refused.error.details.retry_after_seconds * 1000)
    );
  }
};

export const incrPaced = (s: Session) =>
  paced(s, "/step", {
    action: {
      tool_calls: [{ id: `c${++callIds}`, function: { name: "incr" } }]
    }
  });

/** The inspector attached to `s` in a new page, its socket open. */
export const attachInspector = async (browser: Browser, s: Session) => {
  const page = await browser.context.newPage();
  await page.goto(base);
  await page.fill("#attach-id", s.session_id);
  await page.fill("#attach-token", s.token);
  await page.click("#attach");
  await page.locator("#current").waitFor();
  // The socket opens once the page has the session's status.
  await expect
    .poll(() => page.locator("#conn").innerText(), { timeout: 20_000 })
    .toBe("live: open");
  return page;
};
