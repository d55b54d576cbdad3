/**
 * @module A retained event log read every other way and found the same:
 * `/events` at the largest and the smallest page, and the socket's resume
 * from the start of retention and from the middle.
 */
import { expect } from "vitest";
import { readEvents, resumeOverSocket, type SeenEvent } from "./log-reads";
import type { Report } from "./report";
import type { SessionRef, Wire } from "./wire";

const KIB = 1024;
const MIB = 1024 * KIB;

/** The bytes of `events`, as the log counts them. */
export const sumBytes = (events: readonly SeenEvent[]) =>
  events.reduce((n, e) => n + e.bytes, 0);

const digests = (events: readonly SeenEvent[]) =>
  events.map((e) => `${e.seq}:${e.digest}`);

/**
 * The same retained events by every other read: `/events` at the 4 MiB
 * maximum, at 1 KiB (one event a page) for a stretch, and the socket's
 * resume from the start of retention and from the middle.
 */
export const sameReads =
  (wire: Wire, report: Report) =>
  async (s: SessionRef, oldest: number, events: readonly SeenEvent[]) => {
    const last = events.at(-1)!.seq;
    const big = await report.time("events, 4 MiB pages", () =>
      readEvents(wire, s, oldest - 1, { maxBytes: 4 * MIB, limit: 10_000 })
    );
    expect(digests(big.events)).toEqual(digests(events));
    const tail = events.slice(-40);
    const small = await readEvents(wire, s, tail[0]!.seq - 1, {
      maxBytes: KIB
    });
    expect(digests(small.events)).toEqual(digests(tail));
    expect(small.tally.truncated).toBeGreaterThan(0);
    const started = performance.now();
    const replay = await resumeOverSocket(s, oldest - 1, last);
    report.note(
      `socket resume of ${replay.events.length} events: ${replay.messages} messages, largest ${replay.largest} B, ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    expect(digests(replay.events)).toEqual(digests(events));
    const middle = events[Math.floor(events.length / 2)]!.seq;
    const rest = await resumeOverSocket(s, middle, last);
    expect(digests(rest.events)).toEqual(
      digests(events.filter((e) => e.seq > middle))
    );
  };
