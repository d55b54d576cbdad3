/**
 * @module The session the page shows: the one named in the URL's fragment
 * (so a reload, a bookmark or a forked copy's tab keeps it), else the one
 * this tab made before, else a new catalog session, reset once.
 */

import { scopeOfCredential } from "roost-edge/client";

export interface Credentials {
  sessionId: string;
  token: string;
}

const STORAGE_KEY = "roost-chat-session";

const fromHash = (): Credentials | undefined => {
  const params = new URLSearchParams(location.hash.slice(1));
  const sessionId = params.get("session");
  const token = params.get("token");
  return sessionId && token ? { sessionId, token } : undefined;
};

const fromStorage = (): Credentials | undefined => {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null");
    return typeof saved?.sessionId === "string" &&
      typeof saved?.token === "string"
      ? saved
      : undefined;
  } catch {
    return undefined;
  }
};

/** The URL of the page showing `session`, keeping the page's query (the model). */
export const pageUrl = (session: Credentials): string => {
  const hash = new URLSearchParams({
    session: session.sessionId,
    token: session.token
  });
  return `${location.pathname}${location.search}#${hash}`;
};

const remember = (session: Credentials): void => {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  history.replaceState(null, "", pageUrl(session));
};

const post = async (url: string, body: unknown, token?: string) => {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  if (!res.ok) {
    const error = (await res.json().catch(() => null)) as {
      error?: { message?: string };
    } | null;
    throw new Error(error?.error?.message ?? `${url}: HTTP ${res.status}`);
  }
  return res.json() as Promise<Record<string, unknown>>;
};

const stillThere = async (base: string, s: Credentials): Promise<boolean> => {
  const res = await fetch(`${base}/v1/sessions/${s.sessionId}`, {
    headers: { authorization: `Bearer ${s.token}` }
  });
  return res.ok;
};

/**
 * The session to show, created (and reset) when there is none to reuse. A
 * link handed out with a scoped token (`act` to chat, `observe` to watch)
 * that no longer opens says so: a fresh session of the page's own would
 * pass for the one the link meant.
 */
export const openSession = async (base: string): Promise<Credentials> => {
  const linked = fromHash();
  if (linked && (await stillThere(base, linked))) {
    remember(linked);
    return linked;
  }
  if (linked && scopeOfCredential(linked.token) !== "control")
    throw new Error(
      "this link no longer opens its session (its token expired or was revoked, or the session was deleted)"
    );
  const saved = fromStorage();
  if (saved && (await stillThere(base, saved))) {
    remember(saved);
    return saved;
  }
  const created = await post(`${base}/v1/sessions`, { environment: "catalog" });
  const session = {
    sessionId: String(created.session_id),
    token: String(created.token)
  };
  await post(
    `${base}/v1/sessions/${session.sessionId}/reset`,
    {},
    session.token
  );
  remember(session);
  return session;
};
