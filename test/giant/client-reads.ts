/**
 * @module The giant session through the TypeScript client's iterators, as a
 * user reads it: `items.store()` and `items.messages()` follow every cursor
 * and join an entry's parts, so the user never meets the byte budget. Every
 * answer the client receives is held to the same rules as the raw reads.
 */

import { createClient } from "../../src/client";
import { MAX_RESPONSE_BYTES } from "./plan";
import type { StoreSequence } from "./store-sequence";
import type { TranscriptSequence } from "./transcript-sequence";
import type { SessionRef } from "./wire";

/** The platform's fetch, failing on a 5xx or a body over the maximum. */
const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const body = await res.arrayBuffer();
  if (res.status >= 500)
    throw new Error(`${String(input).slice(0, 200)} → ${res.status}`);
  if (body.byteLength > MAX_RESPONSE_BYTES)
    throw new Error(
      `${String(input).slice(0, 200)}: ${body.byteLength} bytes, over ${MAX_RESPONSE_BYTES}`
    );
  return new Response(body, { status: res.status, headers: res.headers });
};

export const readWithClientIterators = async (
  baseUrl: string,
  session: SessionRef,
  store: StoreSequence,
  transcript: TranscriptSequence
): Promise<{ entries: number; messages: number }> => {
  const client = createClient({ baseUrl, fetch: checkedFetch });
  const s = client.session(session.id, session.token);
  let entries = 0;
  for await (const entry of s.items.store({ limit: 1000 })) {
    store.take(entry);
    entries++;
  }
  let messages = 0;
  for await (const message of s.items.messages({ limit: 1000 })) {
    transcript.take(message);
    messages++;
  }
  return { entries, messages };
};
