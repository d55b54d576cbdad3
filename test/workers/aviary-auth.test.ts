// Aviary's client sends its api_key as X-API-Key and nothing else, and its
// server answers a refusal with FastAPI's `detail`.
import { describe, expect, it } from "vitest";
import { withEnv } from "./helpers";

const keyed = withEnv({ ROOST_API_KEYS: "key-a,key-b" });
const start = (headers: Record<string, string>) =>
  keyed("/v1/environments/counter/aviary/start", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ task_idx: null })
  });

describe("Aviary routes with API keys", () => {
  it("admit X-API-Key (any listed key, any header case) and refuse a missing or wrong one with detail", async () => {
    const none = await start({});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      detail: expect.stringContaining("X-API-Key"),
      error: { code: "unauthorized" }
    });
    const wrong = await start({ "X-API-Key": "key-c" });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({
      detail: expect.any(String),
      error: { code: "forbidden" }
    });
    const variants: Record<string, string>[] = [
      { "X-API-Key": "key-b" },
      { "x-api-key": "key-a" }
    ];
    for (const headers of variants) {
      const ok = await start(headers);
      expect(ok.status).toBe(200);
      const { env_id } = (await ok.json()) as { env_id: string };
      const info = await keyed("/v1/environments/counter/aviary/info", {
        headers
      });
      expect(info.status).toBe(200);
      const closed = await keyed("/v1/environments/counter/aviary/close", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ env_id })
      });
      expect(closed.status).toBe(200);
    }
  });
});
