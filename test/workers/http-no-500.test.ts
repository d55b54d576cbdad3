import { describe, expect, it } from "vitest";
import { type CallInit, createResetSession, send } from "./helpers";

const raw = (method: string, body: string): CallInit => ({ method, body });

describe("odd client input", () => {
  it("never produces a 500", async () => {
    const session = await createResetSession({ environment: "lab" });
    const cases: [string, CallInit?][] = [
      ["/environment?cursor=garbage"],
      ["/environment?cursor=-1"],
      ["/environment?cursor=%00%ff"],
      ["/environment?tool=a&tool=b&name=c"],
      ["/environment?tool=note&name=notes&cursor=zzz"],
      ["/environment?limit=1e3"],
      ["/messages?cursor=garbage"],
      ["/messages?cursor=99999999999999999999"],
      ["/state", send("PATCH", { key: "messages", value: [] })],
      ["/state", send("PATCH", { key: "__proto__", value: 1 })],
      ["/state", send("PATCH", { key: "count" })],
      ["/state", raw("PATCH", '{"key":"count","value":1e400}')],
      [
        "/step",
        send("POST", {
          action: {
            tool_calls: [
              { id: "a", function: { name: "bump", arguments: "{not json" } }
            ]
          }
        })
      ],
      ["/step", send("POST", { action: { role: "user", content: "hi" } })],
      ["/step", send("POST", { action: { tool_calls: [] } })],
      ["/step", raw("POST", "null")],
      ["/step", raw("POST", '"string"')],
      ["/step", raw("POST", "\uFEFF{}")],
      ["/tools/bump", send("POST", { arguments: [] })],
      ["/tools/bump", send("POST", { arguments: { key: { deep: true } } })],
      ["/environment/t/n", send("POST", { objects: [{ _REF_ID: 5 }] })],
      ["/environment/t/n/99999999999999999999", send("PUT", { objects: [] })],
      ["/environment/t/n/-0", { method: "DELETE" }],
      ["/reset", send("POST", { task: { label: 5 } })],
      ["/reset", send("POST", { task: null })]
    ];
    for (const [path, init] of cases) {
      const res = await session.call(path, init);
      expect(res.status, `${init?.method ?? "GET"} ${path}`).toBeLessThan(500);
      expect(res.headers.get("Content-Type")).toContain("application/json");
    }
  });
});
