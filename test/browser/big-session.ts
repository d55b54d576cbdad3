/**
 * Sessions larger than one read, built through the public HTTP API: store
 * entries of about a megabyte (so pages of the default 1 MiB budget end
 * inside them), assistant messages of 200 KB, a state value of nearly a
 * megabyte (so the socket's snapshot is cut).
 */

export interface Session {
  session_id: string;
  token: string;
}

/** Objects per big entry, and the filler that makes each about 930 bytes. */
export const ENTRY_OBJECTS = 1000;
const FILLER = "x".repeat(900);
/** Characters of each assistant message's content. */
export const MESSAGE_CHARS = 200_000;

/**
 * A session route called as another client would, waiting out the
 * per-session rate limit (50 mutating calls a second) when a burst runs
 * into it. Any other failure throws with the server's answer.
 */
export const call = async <T>(
  base: string,
  s: Session | undefined,
  method: string,
  path: string,
  body?: unknown
): Promise<T> => {
  const url = s ? `${base}/v1/sessions/${s.session_id}${path}` : base + path;
  for (;;) {
    const res = await fetch(url, {
      method,
      headers: {
        "content-type": "application/json",
        ...(s ? { authorization: `Bearer ${s.token}` } : {})
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
    if (res.status === 429) {
      const refused = (await res.json()) as {
        error: { details: { retry_after_seconds: number } };
      };
      await new Promise((r) =>
        setTimeout(r, refused.error.details.retry_after_seconds * 1000)
      );
      continue;
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }
};

/** An object's id says where it belongs: entry `e`, object `o`. */
export const objectId = (e: number, o: number) => `e${e}-o${o}`;

/** The text of step `k`'s assistant message: its number, then filler. */
export const messageText = (k: number) =>
  `step ${k}: `.padEnd(MESSAGE_CHARS, "y");

/**
 * A catalog session with `entries` entries of 1000 objects under
 * `bulk/rows` and `steps` steps, each an assistant message of 200 000
 * characters calling `query`: a transcript of 1 + 2·steps messages.
 */
export const bigCatalog = async (
  base: string,
  { entries, steps }: { entries: number; steps: number }
): Promise<Session> => {
  const s = await call<Session>(base, undefined, "POST", "/v1/sessions", {
    environment: "catalog"
  });
  await call(base, s, "POST", "/reset", {});
  for (let e = 0; e < entries; e++) {
    const objects = Array.from({ length: ENTRY_OBJECTS }, (_, o) => ({
      id: objectId(e, o),
      text: FILLER
    }));
    await call(base, s, "POST", "/environment/bulk/rows", { objects });
  }
  for (let k = 1; k <= steps; k++) {
    await call(base, s, "POST", "/step", {
      action: {
        content: messageText(k),
        tool_calls: [
          {
            id: `c${k}`,
            type: "function",
            function: {
              name: "query",
              arguments: JSON.stringify({ collection: "products", limit: 1 })
            }
          }
        ]
      }
    });
  }
  return s;
};

/** JSON characters of the story session's one state value: just under its 1 MiB limit. */
export const STATE_JSON_CHARS = 1_047_986;

/**
 * A story session whose state (`printed`) is nearly a megabyte and whose
 * store has `keys` small keys: the snapshot's budget is spent on the state,
 * so it carries only the first keys and a cursor for the rest.
 */
export const bigState = async (
  base: string,
  keys: number
): Promise<Session> => {
  const s = await call<Session>(base, undefined, "POST", "/v1/sessions", {
    environment: "story"
  });
  await call(base, s, "POST", "/reset", {});
  // Five strings, 1 047 970 characters, 16 more of JSON around them.
  const parts = [250_000, 250_000, 250_000, 250_000, 47_970];
  for (const [i, length] of parts.entries()) {
    await call(base, s, "PATCH", "/state", {
      key: "printed",
      value: [String(i).padEnd(length, "z")],
      handler: "merge_lists"
    });
  }
  for (let k = 0; k < keys; k++) {
    const name = `key${String(k).padStart(2, "0")}`;
    await call(base, s, "POST", `/environment/many/${name}`, {
      objects: [{ k }]
    });
  }
  return s;
};
