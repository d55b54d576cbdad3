import { describe, expect, it } from "vitest";
import {
  type Clock,
  createClient,
  type FetchLike,
  mapObjects,
  RoostClientError
} from "../../src/client/index";

// The HTTP client against a scripted fetch: error bodies, response checks,
// and which calls are retried (and with which Idempotency-Key).

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers }
  });

/** A fetch that answers from a script, one entry per call; an Error entry is a network failure. */
const scripted = (answers: (Response | Error)[]) => {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({
      url,
      method: init.method ?? "GET",
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined
    });
    const next = answers.shift();
    if (!next) throw new Error("fetch called more often than scripted");
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, calls };
};

/** Runs every timer at once and remembers the delays asked for. */
const instantClock = () => {
  const delays: number[] = [];
  const clock: Clock = {
    now: () => 0,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      queueMicrotask(callback);
      return 0;
    },
    clearTimeout: () => {}
  };
  return { clock, delays };
};

const STEP = {
  observations: [
    { role: "tool", tool_call_id: "c1", name: "incr", content: "counter=1" }
  ],
  reward: 0,
  done: false,
  truncated: false
};
const ACTION = {
  tool_calls: [{ id: "c1", function: { name: "incr", arguments: {} } }]
};

describe("createClient", () => {
  it("sends the token, the body and a fresh Idempotency-Key, and parses the answer", async () => {
    const { fetch, calls } = scripted([json(200, STEP)]);
    const session = createClient({ baseUrl: "http://x/", fetch }).session(
      "s 1",
      "tok"
    );
    expect(await session.step(ACTION)).toEqual(STEP);
    const call = calls[0]!;
    expect(call.url).toBe("http://x/v1/sessions/s%201/step");
    expect(call.method).toBe("POST");
    expect(call.headers.authorization).toBe("Bearer tok");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.headers["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(call.body!)).toEqual({ action: ACTION });
  });

  it("retries a mutation after a network error and a 503 with the same key and bytes, backing off", async () => {
    const { clock, delays } = instantClock();
    const { fetch, calls } = scripted([
      new TypeError("fetch failed"),
      json(
        503,
        { error: { code: "unavailable", message: "busy" } },
        { "retry-after": "2" }
      ),
      json(200, STEP)
    ]);
    const client = createClient({
      baseUrl: "http://x",
      fetch,
      clock,
      random: () => 0
    });
    await client.session("s1", "tok").step(ACTION, { idempotencyKey: "mine" });
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.headers["idempotency-key"]))).toEqual(
      new Set(["mine"])
    );
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    // 100 ms (half of 200, no jitter), then Retry-After's 2 s over 200 ms.
    expect(delays).toEqual([100, 2000]);
  });

  it("retries a mutation whose answer was cut off after its headers (a server that died mid-body)", async () => {
    const { clock } = instantClock();
    const cut = new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"observations":'));
          controller.error(new TypeError("terminated"));
        }
      }),
      { status: 200, headers: { "content-type": "application/json" } }
    );
    const { fetch, calls } = scripted([cut, json(200, STEP)]);
    const client = createClient({ baseUrl: "http://x", fetch, clock });
    expect(
      await client.session("s1", "tok").step(ACTION, { idempotencyKey: "k" })
    ).toEqual(STEP);
    expect(calls.map((c) => c.headers["idempotency-key"])).toEqual(["k", "k"]);
  });

  it("gives up after the bounded retries with a network_error", async () => {
    const { clock } = instantClock();
    const { fetch, calls } = scripted([
      new TypeError("a"),
      new TypeError("b"),
      new TypeError("c")
    ]);
    const client = createClient({
      baseUrl: "http://x",
      fetch,
      clock,
      retries: 2
    });
    const error = await client
      .session("s1", "tok")
      .state()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RoostClientError);
    expect(error).toMatchObject({ code: "network_error", status: 0 });
    expect(calls).toHaveLength(3);
  });

  it("never retries creating a session, and sends the API key", async () => {
    const { clock } = instantClock();
    const { fetch, calls } = scripted([
      json(503, {
        error: { code: "unavailable", message: "Set ROOST_SECRETS." }
      })
    ]);
    const client = createClient({
      baseUrl: "http://x",
      fetch,
      clock,
      apiKey: "key"
    });
    await expect(
      client.createSession({ environment: "counter" })
    ).rejects.toMatchObject({
      code: "unavailable",
      status: 503,
      message: "Set ROOST_SECRETS."
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe("Bearer key");
  });

  it("forks with the session token and the client's API key, and hands back the copies with theirs", async () => {
    const copy = { session_id: "c1", token: "tok-c1", ws_url: "ws://x/c1" };
    const { fetch, calls } = scripted([
      json(201, {
        source: "s1",
        seq: 4,
        copied: { rows: 3, bytes: 120 },
        sessions: [copy]
      }),
      json(200, STEP)
    ]);
    const client = createClient({ baseUrl: "http://x", fetch, apiKey: "key" });
    const [forked] = await client.session("s1", "tok").fork(1);
    expect(calls[0]).toMatchObject({
      url: "http://x/v1/sessions/s1/fork",
      method: "POST",
      body: '{"count":1}'
    });
    expect(calls[0]!.headers.authorization).toBe("Bearer tok");
    expect(calls[0]!.headers["x-api-key"]).toBe("key");
    expect(calls[0]!.headers["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    expect([forked!.id, forked!.token, forked!.wsUrl]).toEqual([
      "c1",
      "tok-c1",
      "ws://x/c1"
    ]);
    await forked!.step(ACTION);
    expect(calls[1]!.url).toBe("http://x/v1/sessions/c1/step");
    expect(calls[1]!.headers.authorization).toBe("Bearer tok-c1");
  });

  it("throws the server's error body as a RoostClientError with code, status and details", async () => {
    const details = {
      issues: [{ path: "action", code: "invalid_type", message: "Required" }]
    };
    const { fetch } = scripted([
      json(400, {
        error: {
          code: "invalid_request",
          message: "Invalid request: action",
          details
        }
      })
    ]);
    const error = await createClient({ baseUrl: "http://x", fetch })
      .session("s1", "tok")
      .step(ACTION)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RoostClientError);
    expect(error).toMatchObject({
      code: "invalid_request",
      status: 400,
      message: "Invalid request: action",
      details
    });
  });

  it("rejects a body of the wrong shape as invalid_response", async () => {
    const { fetch } = scripted([json(200, { observations: "nope" })]);
    await expect(
      createClient({ baseUrl: "http://x", fetch }).session("s1", "t").reset()
    ).rejects.toMatchObject({ code: "invalid_response", status: 200 });
  });

  it("reads the store with the query as parameters and the right response shape", async () => {
    const entry = {
      tool: "search",
      name: "hits",
      index: 0,
      objects: [],
      metadata: {}
    };
    const { fetch, calls } = scripted([
      json(200, { store: {} }),
      json(200, { entries: [entry] }),
      json(200, { entry })
    ]);
    const session = createClient({ baseUrl: "http://x", fetch }).session(
      "s1",
      "t"
    );
    expect(await session.environment({ limit: 5 })).toEqual({ store: {} });
    expect(await session.environment({ tool: "search", name: "hits" })).toEqual(
      { entries: [entry] }
    );
    expect(
      await session.environment({ tool: "search", name: "hits", index: -1 })
    ).toEqual({ entry });
    expect(
      calls.map((c) => c.url.replace("http://x/v1/sessions/s1", ""))
    ).toEqual([
      "/environment?limit=5",
      "/environment?tool=search&name=hits",
      "/environment?tool=search&name=hits&index=-1"
    ]);
  });

  it("writes payloadType as payload_type and keeps an entry's display fields when it parses", async () => {
    const entry = {
      tool: "shop",
      name: "products",
      index: 0,
      objects: [
        { _REF_ID: "shop_products_1_0", title: "Kettle", price_eur: 30 }
      ],
      metadata: {},
      payload_type: "table",
      mapping: { product: "title", price: "price_eur" }
    };
    const { fetch, calls } = scripted([json(201, { entry })]);
    const session = createClient({ baseUrl: "http://x", fetch }).session(
      "s1",
      "t"
    );
    const added = await session.add("shop", "products", {
      objects: [{ title: "Kettle", price_eur: 30 }],
      payloadType: "table",
      mapping: { product: "title", price: "price_eur" }
    });
    expect(JSON.parse(calls[0]!.body!)).toEqual({
      objects: [{ title: "Kettle", price_eur: 30 }],
      payload_type: "table",
      mapping: { product: "title", price: "price_eur" }
    });
    expect(added).toEqual({ entry });
    expect(mapObjects(added.entry.objects, added.entry.mapping)).toEqual([
      { product: "Kettle", price: 30, _REF_ID: "shop_products_1_0" }
    ]);
  });
});
