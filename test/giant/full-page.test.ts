// A page filled to its last byte at the largest budget: the messages a
// `max_bytes=4194304` page of the transcript takes sum to exactly the
// budget, as the server counts them (each message's JSON and a comma). The
// answer's own JSON (`{"messages":[…],"next_cursor":…,"truncated":true}`)
// comes on top, and must still not pass the 4 MiB any response may carry.
import { describe, expect, inject, it } from "vitest";
import { createCounter } from "./build";
import { MAX_RESPONSE_BYTES } from "./plan";
import { readMessages } from "./store-reads";
import { Wire } from "./wire";

const wire = new Wire(inject("baseUrl"));

type Message = { role: string; content?: unknown };

const assistant = (texts: number[]) => ({
  role: "assistant",
  content: texts.map((n, i) => ({ type: "text", text: String(i).repeat(n) }))
});

/** A message's bytes as a page's budget counts them. */
const counted = (m: unknown) => Buffer.byteLength(JSON.stringify(m)) + 1;

describe("a transcript page filled to its budget's last byte", () => {
  it("stays within 4 MiB at max_bytes=4194304, and reads on with every message once", async () => {
    const s = await createCounter(wire);
    const big = assistant([250_000, 250_000, 250_000, 250_000]);
    for (let i = 0; i < 4; i++) await wire.post(s, "/step", { action: big });
    const before: Message[] = [];
    await readMessages(wire, s, (m) => before.push(m));
    // One more assistant message, sized so the page's messages fill the budget.
    const used = before.reduce((n, m) => n + counted(m), 0);
    const empty = counted(assistant([0]));
    const last = assistant([MAX_RESPONSE_BYTES - used - empty]);
    expect(used + counted(last)).toBe(MAX_RESPONSE_BYTES);
    await wire.post(s, "/step", { action: last });
    // Wire refuses any answer over MAX_RESPONSE_BYTES.
    const read: Message[] = [];
    const tally = await readMessages(wire, s, (m) => read.push(m), {
      maxBytes: MAX_RESPONSE_BYTES,
      limit: 1000
    });
    expect(tally.largest).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(read).toEqual([
      ...before,
      last,
      expect.objectContaining({ role: "user" })
    ]);
  });
});
