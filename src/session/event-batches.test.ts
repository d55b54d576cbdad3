import { describe, expect, it } from "vitest";
import { utf8Length } from "../json";
import { MAX_BATCH_BYTES, packEvents } from "./event-batches";

const event = (seq: number, pad = 0) => {
  const text = JSON.stringify({ seq, type: "update", pad: "é".repeat(pad) });
  return { seq, text };
};

describe("packEvents", () => {
  it("sends a lone event as itself and two or more as one batch, in order", () => {
    expect(packEvents([])).toEqual([]);
    expect(packEvents([event(1)])).toEqual([event(1).text]);
    const [batch, ...rest] = packEvents([event(1), event(2), event(3)]);
    expect(rest).toEqual([]);
    expect(JSON.parse(batch!)).toEqual({
      type: "batch",
      events: [1, 2, 3].map((seq) => JSON.parse(event(seq).text))
    });
  });

  it("never lets a batch pass MAX_BATCH_BYTES of UTF-8, and keeps every event in seq order", () => {
    // Two-byte characters: counting UTF-16 units would let these through.
    const events = Array.from({ length: 12 }, (_, i) => event(i + 1, 120_000));
    const messages = packEvents(events);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages)
      expect(utf8Length(message)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    const seqs = messages.flatMap((m) => {
      const frame = JSON.parse(m) as {
        type: string;
        seq?: number;
        events?: { seq: number }[];
      };
      return frame.type === "batch"
        ? frame.events!.map((e) => e.seq)
        : [frame.seq!];
    });
    expect(seqs).toEqual(events.map((e) => e.seq));
  });
});
