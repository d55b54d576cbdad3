/** @module The state and transcript overlays: the state contract over them, isolation, mixed reads and cost. */

import { describe, expect, it } from "vitest";
import type { Message } from "../messages/schema";
import { countCalls, flushEvery } from "../store/overlay-helpers.case";
import { fixture } from "./case-helpers";
import { MemoryStateBackend, MemoryTranscriptBackend } from "./memory-backend";
import {
  OverlayStateBackend,
  OverlayTranscriptBackend
} from "./overlay-backend";
import { State } from "./state";
import { runStateContract } from "./state.case";
import type { TranscriptBackend } from "./types";

runStateContract("overlay, never flushed", () => ({
  backend: new OverlayStateBackend(new MemoryStateBackend()),
  transcript: new OverlayTranscriptBackend(new MemoryTranscriptBackend())
}));

runStateContract("overlay, flushed every other write", () => ({
  backend: flushEvery(new OverlayStateBackend(new MemoryStateBackend()), 2, [
    "set"
  ]),
  transcript: flushEvery(
    new OverlayTranscriptBackend(new MemoryTranscriptBackend()),
    2,
    ["append"]
  )
}));

const user = (content: string): Message => ({ role: "user", content });
const contents = (list: Message[]) => list.map((m) => m.content);

/** Memory bases holding `count` and `name`, and the turns m0 … m2. */
const seeded = () => {
  const state = new MemoryStateBackend();
  const transcript = new MemoryTranscriptBackend();
  state.set("count", 1);
  state.set("name", "base");
  transcript.append([user("m0"), user("m1"), user("m2")]);
  return { state, transcript };
};

describe("OverlayStateBackend and OverlayTranscriptBackend", () => {
  it("keep every write from the base until flush, while State reads them", () => {
    const base = seeded();
    const stateSpy = countCalls(base.state);
    const turnSpy = countCalls(base.transcript);
    const backend = new OverlayStateBackend(stateSpy.backend);
    const transcript = new OverlayTranscriptBackend(turnSpy.backend);
    const state = new State(fixture, backend, transcript);
    state.set("count", 5);
    state.set("tags", ["a"]);
    state.set("tags", "b");
    state.set("messages", [user("m3"), user("m4")]);
    state.set("messages", user("m5"));
    expect(stateSpy.count("set") + turnSpy.count("append")).toBe(0);
    expect(backend.touched && transcript.touched).toBe(true);
    expect(state.toJSON()).toEqual({
      count: 5,
      name: "base",
      tags: ["a", "b"]
    });
    expect(contents(state.get("messages") ?? [])).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "m4",
      "m5"
    ]);
    backend.flush();
    transcript.flush();
    expect(turnSpy.count("append")).toBe(1);
    expect(base.state.keys()).toEqual(["count", "name", "tags"]);
    expect(base.state.get("tags")).toEqual(["a", "b"]);
    expect(base.transcript.count()).toBe(6);
    expect(backend.touched || transcript.touched).toBe(false);
    expect(contents(transcript.list(4, 10))).toEqual(["m4", "m5"]);
  });

  it("leave the base exactly as it was after discard", () => {
    const base = seeded();
    const backend = new OverlayStateBackend(base.state);
    const transcript = new OverlayTranscriptBackend(base.transcript);
    backend.set("count", 2);
    backend.set("fresh", { a: 1 });
    transcript.append([user("m3")]);
    backend.discard();
    transcript.discard();
    expect(base.state.keys()).toEqual(["count", "name"]);
    expect(base.state.get("count")).toBe(1);
    expect(base.transcript.count()).toBe(3);
    expect(backend.get("fresh")).toBeUndefined();
    expect(transcript.count()).toBe(3);
  });

  it("list new keys after the base's and pages across base and pending turns", () => {
    const base = seeded();
    const backend = new OverlayStateBackend(base.state);
    backend.set("zeta", 1);
    backend.set("count", 9);
    backend.set("alpha", 2);
    expect(backend.keys()).toEqual(["count", "name", "zeta", "alpha"]);
    expect(backend.has("name") && backend.has("zeta")).toBe(true);
    expect(backend.has("missing")).toBe(false);
    const transcript = new OverlayTranscriptBackend(base.transcript);
    transcript.append([user("m3"), user("m4")]);
    expect(transcript.count()).toBe(5);
    expect(contents(transcript.list(2, 2))).toEqual(["m2", "m3"]);
    expect(contents(transcript.list(0, 2))).toEqual(["m0", "m1"]);
    expect(contents(transcript.list(4, 9))).toEqual(["m4"]);
    expect(contents(transcript.list(-3, 2))).toEqual(["m0", "m1"]);
    expect(transcript.list(5, 3)).toEqual([]);
    expect(transcript.list(1, 0)).toEqual([]);
  });

  it("reads the newest turns of a long transcript without loading the rest", () => {
    const base = new MemoryTranscriptBackend();
    base.append(Array.from({ length: 10_000 }, (_, i) => user(`m${i}`)));
    const spy = countCalls(base);
    let loaded = 0;
    const measured: TranscriptBackend = {
      append: (messages) => spy.backend.append(messages),
      count: () => spy.backend.count(),
      list: (offset, limit) => {
        const list = spy.backend.list(offset, limit);
        loaded += list.length;
        return list;
      }
    };
    const transcript = new OverlayTranscriptBackend(measured);
    transcript.append([user("new")]);
    expect(contents(transcript.list(9_999, 5))).toEqual(["m9999", "new"]);
    expect(loaded).toBe(1);
    transcript.flush();
    expect(spy.count("append")).toBe(1);
    expect(base.count()).toBe(10_001);
  });
});
