/**
 * @module "Share read-only link": mints an observe token for the session
 * shown and makes a URL that opens this inspector on it. The token rides in
 * the URL's fragment, which the browser never sends to a server, so it
 * stays out of access logs; whoever holds the link watches until it
 * expires or the session's observe tokens are revoked.
 */

import { type Credentials, sessionApi } from "./api";
import { $ } from "./dom";

/** The session and token a link names (`#session=…&token=…`), if any. */
export const linkedSession = (): Credentials | undefined => {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("session");
  const token = params.get("token");
  return id && token ? { id, token } : undefined;
};

/** The URL of this inspector opened on `s` with its token. */
export const linkTo = (s: Credentials): string =>
  `${location.origin}${location.pathname}#${new URLSearchParams({ session: s.id, token: s.token })}`;

/** Hides a link made for the previous session. */
export const resetShare = (): void => {
  $("#share-link").hidden = true;
  $<HTMLInputElement>("#share-url").value = "";
};

/** Mints the observe token (ttl from the select: an hour, a day, a week) and shows its link. */
export const share = async (s: Credentials): Promise<void> => {
  const ttl = Number($<HTMLSelectElement>("#share-ttl").value);
  const minted = await sessionApi<{ token: string; expires_at: string }>(
    s,
    "POST",
    "/tokens",
    { scope: "observe", ttl_s: ttl }
  );
  const url = $<HTMLInputElement>("#share-url");
  url.value = linkTo({ id: s.id, token: minted.token });
  $("#share-expiry").textContent =
    `Watches only, until ${new Date(minted.expires_at).toLocaleString()}.`;
  $("#share-copy").textContent = "Copy";
  $("#share-link").hidden = false;
  url.select();
};

/** Copies the link; where the clipboard is refused, the selected field still lets the user copy it. */
export const copyShared = async (): Promise<void> => {
  const url = $<HTMLInputElement>("#share-url");
  url.select();
  try {
    await navigator.clipboard.writeText(url.value);
    $("#share-copy").textContent = "Copied";
  } catch {
    $("#share-copy").textContent = "Press Ctrl+C";
  }
};
