/** @module One store per baseUrl, session and token, shared by every component that shows it. */

import { SessionStore, type StoreOptions } from "./session-store";

interface Shared {
  store: SessionStore;
  users: number;
  closing: ReturnType<typeof setTimeout> | undefined;
}

const shared = new Map<string, Shared>();

// Views that read the transcript and views that do not hold different messages.
const keyOf = (o: StoreOptions) =>
  JSON.stringify([
    o.baseUrl.replace(/\/+$/, ""),
    o.sessionId,
    o.token,
    o.transcript !== false
  ]);

/**
 * The store for these options, made on first use without connecting:
 * rendering has no side effects, the socket opens in `acquire`.
 */
export const storeFor = (options: StoreOptions): SessionStore => {
  const key = keyOf(options);
  let entry = shared.get(key);
  if (!entry) {
    entry = {
      store: new SessionStore(options),
      users: 0,
      closing: undefined
    };
    shared.set(key, entry);
  }
  return entry.store;
};

/**
 * Counts a user of the store and connects it; the returned release closes
 * the socket only after a turn of the event loop without users, so
 * StrictMode's mount, unmount and mount again keep one socket.
 */
export const acquire = (
  store: SessionStore,
  options: StoreOptions,
  closeDelayMs = 0
): (() => void) => {
  const key = keyOf(options);
  let entry = shared.get(key);
  // Closed and forgotten since this component rendered it: shared again.
  if (entry?.store !== store) {
    entry = { store, users: 0, closing: undefined };
    shared.set(key, entry);
  }
  const held = entry;
  held.users++;
  if (held.closing !== undefined) clearTimeout(held.closing);
  held.closing = undefined;
  store.connect();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.users--;
    if (held.users > 0) return;
    held.closing = setTimeout(() => {
      if (held.users > 0) return;
      store.close();
      if (shared.get(key) === held) shared.delete(key);
    }, closeDelayMs);
  };
};
