/**
 * @module The session's live view as an MCP App (`ui://`, the
 * io.modelcontextprotocol/ui extension): a page a host renders beside the
 * tool calls, which opens the session's socket with an observe-only token
 * minted for it on each read and lists the session's events as they come.
 * Its half of the host's handshake (ui/initialize, then
 * ui/notifications/initialized) is written out here rather than taken from
 * the extension's SDK, which would weigh more than the whole worker.
 */

/** The resource every tool of a session links to, for hosts that render apps. */
export const LIVE_VIEW_URI = "ui://roost/live-view";
export const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The host protocol the page speaks. */
const APPS_PROTOCOL = "2026-01-26";

export interface LiveView {
  sessionId: string;
  /** The session socket's URL (wss://…/v1/sessions/:id/ws). */
  socket: string;
  /** An observe-only token for that socket. */
  token: string;
}

/** JSON that is safe inside a <script> element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replaceAll("<", "\\u003c");

/** The page, its session and credential written into it. */
export const liveViewHtml = (view: LiveView): string => `<!doctype html>
<html><head><meta charset="utf-8"><title>Roost session</title>
<style>body{font:13px system-ui,sans-serif;margin:8px}code{font-size:12px}
ol{padding-left:3em;max-height:320px;overflow:auto}#state{color:#555}</style>
</head><body>
<div>Session <code id="session"></code> · <span id="state">connecting…</span></div>
<div id="result"></div><ol id="events"></ol>
<script>
const view = ${scriptJson(view)};
const $ = (id) => document.getElementById(id);
$("session").textContent = view.sessionId.slice(0, 12);
let next = 1;
const waiting = new Map();
const post = (m) => window.parent.postMessage({ jsonrpc: "2.0", ...m }, "*");
const ask = (method, params) =>
  new Promise((done) => { const id = next++; waiting.set(id, done); post({ id, method, params }); });
const text = (r) => (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(" ");
const show = (e) => {
  const li = document.createElement("li");
  li.value = e.seq ?? 0;
  li.textContent = e.type + (e.tool ? " " + e.tool : "") + (e.is_error ? " (error)" : "");
  $("events").append(li);
  li.scrollIntoView({ block: "nearest" });
};
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (m?.jsonrpc !== "2.0") return;
  if (m.method === undefined && waiting.has(m.id)) { waiting.get(m.id)(m.result); waiting.delete(m.id); return; }
  if (m.method === "ui/notifications/tool-result") $("result").textContent = "Result: " + text(m.params);
  // The host's requests (a teardown, a ping) are acknowledged.
  else if (m.method !== undefined && m.id !== undefined) post({ id: m.id, result: {} });
});
const watch = () => {
  const socket = new WebSocket(view.socket, ["roost.v1", "roost.token." + view.token]);
  socket.onopen = () => ($("state").textContent = "live");
  socket.onclose = () => ($("state").textContent = "closed");
  socket.onmessage = (message) => {
    const frame = JSON.parse(message.data);
    for (const e of frame.type === "batch" ? frame.events : [frame]) if (e.seq !== undefined) show(e);
  };
};
ask("ui/initialize", {
  appInfo: { name: "roost-live-view", version: "1" },
  appCapabilities: {},
  protocolVersion: ${JSON.stringify(APPS_PROTOCOL)}
}).then(() => { post({ method: "ui/notifications/initialized" }); watch(); });
</script></body></html>
`;

/** The resource's `_meta.ui`: the host lets the page reach the session's origin. */
export const liveViewMeta = (view: LiveView) => {
  const socket = new URL(view.socket);
  const http = `${socket.protocol === "wss:" ? "https:" : "http:"}//${socket.host}`;
  return { ui: { csp: { connectDomains: [socket.origin, http] } } };
};
