import { env, SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("runs", async () => {
  const r = await SELF.fetch("http://x/");
  expect(await r.text()).toBe("ok");
  const stub = (env as any).SESSIONS.get((env as any).SESSIONS.newUniqueId());
  expect(await stub.ping()).toBe(1);
});
