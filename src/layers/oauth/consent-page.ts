/**
 * @module The consent page: the one HTML Roost renders itself. Tiny, with
 * no scripts and no external assets; every value is escaped, and the
 * headers forbid framing (a hidden frame would let another site take the
 * click) and caching (the form holds a one-off token).
 */

const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[
        c
      ]!
  );

const HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"
};

const STYLE =
  "body{font:16px system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em}code{word-break:break-all}p.error{color:#b00}input{width:100%;box-sizing:border-box;padding:.4em}button{margin:1em .5em 0 0;padding:.5em 1.2em}";

const page = (title: string, body: string, status: number): Response =>
  new Response(
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${STYLE}</style><h1>${escapeHtml(title)}</h1>${body}</html>`,
    { status, headers: HEADERS }
  );

export interface ConsentView {
  clientName: string | undefined;
  /** Where the answer goes: the redirect URI's origin (or scheme), what the user can check. */
  returnsTo: string;
  resource: string;
  /** What the approver must type, if anything: an API key, or a token of the session. */
  asks: "nothing" | "api key" | "session token";
  /** The sealed request and its nonce (the cookie holds the same). */
  consent: string;
  error?: string;
}

export const consentPage = (view: ConsentView, status = 200): Response => {
  const who = view.clientName
    ? `<b>${escapeHtml(view.clientName)}</b> (it names itself; it will be sent back to <code>${escapeHtml(view.returnsTo)}</code>)`
    : `A client at <code>${escapeHtml(view.returnsTo)}</code>`;
  const field =
    view.asks === "nothing"
      ? ""
      : `<p><label>${view.asks === "api key" ? "A Roost API key of this server" : "This session's token (one that may act), or an API key"}<br><input type="password" name="credential" autocomplete="off" required></label>`;
  return page(
    "Allow tool access?",
    `${view.error ? `<p class="error">${escapeHtml(view.error)}</p>` : ""}<p>${who} asks to call the tools of <code>${escapeHtml(view.resource)}</code>.<p>It may call tools and read what they return; it may not reset, edit, fork or delete the session, nor read its hidden store.<form method="post">${field}<input type="hidden" name="consent" value="${escapeHtml(view.consent)}"><button name="decision" value="allow">Allow</button><button name="decision" value="deny" formnovalidate>Deny</button></form>`,
    status
  );
};

/** An authorization request that cannot be sent back to its client (unknown client, unregistered redirect URI). */
export const errorPage = (message: string, status = 400): Response =>
  page(
    "Authorization failed",
    `<p class="error">${escapeHtml(message)}</p>`,
    status
  );
