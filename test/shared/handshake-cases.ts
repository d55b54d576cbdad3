/**
 * @module The session WebSocket's handshake matrix, run by each real client
 * (the `ws` package, Chromium): what is offered, what the server must select
 * (only an offered protocol, RFC 6455 §4.1), and how the connection ends.
 */

export interface CreatedSession {
  session_id: string;
  token: string;
  ws_url: string;
}

/** A counter session created over HTTP, as a client would. */
export const createSession = async (base: string): Promise<CreatedSession> => {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "counter" })
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  return (await res.json()) as CreatedSession;
};

export interface HandshakeCase {
  name: string;
  /** The URL and protocols offered; `other` is a second session (for a wrong token). */
  offer(
    s: CreatedSession,
    other: CreatedSession
  ): { url: string; protocols: string[] };
  /** The protocol the server must select ("" for none). */
  selects(s: CreatedSession): string;
  /** 1000 when it opens (the first frame is the snapshot), else the refusal's code. */
  code: 1000 | 4401 | 4403;
}

/** roost.v1 with a token protocol, as the client library offers them. */
const both = (token: string) => ["roost.v1", `roost.token.${token}`];

export const HANDSHAKE_CASES: readonly HandshakeCase[] = [
  {
    name: "opens with the token as a subprotocol, selecting roost.v1",
    offer: (s) => ({ url: s.ws_url, protocols: both(s.token) }),
    selects: () => "roost.v1",
    code: 1000
  },
  {
    name: "opens with ?token=, selecting no protocol",
    offer: (s) => ({ url: `${s.ws_url}?token=${s.token}`, protocols: [] }),
    selects: () => "",
    code: 1000
  },
  {
    name: "opens when only the token protocol is offered, selecting it",
    offer: (s) => ({ url: s.ws_url, protocols: [`roost.token.${s.token}`] }),
    selects: (s) => `roost.token.${s.token}`,
    code: 1000
  },
  {
    name: "selects roost.v1 among unrelated protocols",
    offer: (s) => ({
      url: s.ws_url,
      protocols: ["chat", ...both(s.token)]
    }),
    selects: () => "roost.v1",
    code: 1000
  },
  {
    name: "closes 4401 without credentials, offering nothing",
    offer: (s) => ({ url: s.ws_url, protocols: [] }),
    selects: () => "",
    code: 4401
  },
  {
    name: "closes 4401 without credentials, offering roost.v1",
    offer: (s) => ({ url: s.ws_url, protocols: ["roost.v1"] }),
    selects: () => "roost.v1",
    code: 4401
  },
  {
    name: "closes 4403 for another session's token as a subprotocol",
    offer: (s, other) => ({ url: s.ws_url, protocols: both(other.token) }),
    selects: () => "roost.v1",
    code: 4403
  },
  {
    name: "closes 4403 for another session's ?token=",
    offer: (s, other) => ({
      url: `${s.ws_url}?token=${other.token}`,
      protocols: []
    }),
    selects: () => "",
    code: 4403
  },
  {
    name: "closes 4403 for a malformed ?token=",
    offer: (s) => ({ url: `${s.ws_url}?token=v1.nope.x`, protocols: [] }),
    selects: () => "",
    code: 4403
  }
];

/** What a case must produce, in the fields both clients report. */
export const expected = (c: HandshakeCase, s: CreatedSession) => ({
  protocol: c.selects(s),
  code: c.code,
  first: c.code === 1000 ? "session.snapshot" : undefined
});
