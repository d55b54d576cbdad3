// @vitest-environment happy-dom
// useSession in a DOM (happy-dom) with react-dom's createRoot and act,
// against the shared wrangler dev, over the ws package's WebSocket.
import {
  act,
  createElement,
  type FunctionComponent,
  memo,
  StrictMode,
  useRef
} from "react";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  connectSession,
  createClient,
  type Message,
  type RoostSession,
  type SnapshotFrame
} from "../../src/client/index";
import type { EventFrame } from "../../src/protocol";
import {
  type SessionHandle,
  type UseSessionOptions,
  useSession
} from "../../src/react/index";
import {
  actUntil,
  nodeFetch,
  reactRoots,
  WebSocket
} from "./helpers/react-dom";

const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl, fetch: nodeFetch });
const roots = reactRoots();

/** Counts every socket the hook opens, and keeps them so a test can cut one. */
const sockets: WebSocket[] = [];
class CountingWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols);
    sockets.push(this);
  }
}

afterEach(() => {
  sockets.length = 0;
});

const toolCall = (name: string, args: object, id = "c") => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) }
});
const incr = (n = 1) => ({
  tool_calls: Array.from({ length: n }, (_, i) => toolCall("incr", {}, `c${i}`))
});

/** Renders of each memoised row, by the object it showed. */
let messageRenders: Message[] = [];
let eventRenders: EventFrame[] = [];
const MessageRow = memo(({ message }: { message: Message }) => {
  messageRenders.push(message);
  return createElement("li", null, message.role);
});
const EventRow = memo(({ event }: { event: EventFrame }) => {
  eventRenders.push(event);
  return createElement("li", null, event.type);
});

/** The latest handle the component rendered with. */
let hook: SessionHandle | undefined;
const Transcript: FunctionComponent<UseSessionOptions> = (props) => {
  const session = useSession(props);
  const renders = useRef(0);
  renders.current++;
  hook = session;
  return createElement(
    "div",
    null,
    // A view shows where it stands: the hook re-renders for the slices read here.
    createElement(
      "p",
      null,
      `${session.connection} ${session.state === undefined ? "waiting" : "ready"}`
    ),
    createElement(
      "ul",
      null,
      session.messages.map((m, i) =>
        createElement(MessageRow, { key: i, message: m })
      )
    ),
    createElement(
      "ol",
      null,
      session.events.map((e) =>
        createElement(EventRow, { key: e.seq, event: e })
      )
    )
  );
};

const mount = async (
  session: RoostSession,
  strict = false,
  extra: Partial<UseSessionOptions> = {}
) => {
  messageRenders = [];
  eventRenders = [];
  const props: UseSessionOptions = {
    ...extra,
    baseUrl,
    sessionId: session.id,
    token: session.token,
    WebSocket: CountingWebSocket,
    fetch: nodeFetch,
    heartbeatMs: 0,
    backoff: { baseMs: 100, maxMs: 500 }
  };
  const element = createElement(Transcript, props);
  await roots.render(
    strict ? createElement(StrictMode, null, element) : element
  );
  await until(
    () => hook?.connection === "open" && hook.state !== undefined,
    "the snapshot"
  );
  return hook!;
};

/** Lets React and the socket work until `predicate` holds. */
const until = (predicate: () => boolean, what: string) =>
  actUntil(predicate, what, () => ({
    connection: hook?.connection,
    state: hook?.state,
    error: String(hook?.error)
  }));

const h = () => hook!;
const transcript = async (session: RoostSession) => {
  const all: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await session.messages(cursor ? { cursor } : {});
    all.push(...page.messages);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
};
const logged = async (session: RoostSession, after: number) =>
  (await session.events(after, 1000)).events;

/** The snapshot a plain client socket gets first, before the hook sees one. */
const firstSnapshot = (session: RoostSession) =>
  new Promise<SnapshotFrame>((resolve, reject) => {
    const socket = connectSession({
      baseUrl,
      sessionId: session.id,
      token: session.token,
      WebSocket,
      fetch: nodeFetch,
      heartbeatMs: 0,
      onEvent: () => undefined,
      onSnapshot: (snapshot) => {
        socket.close();
        resolve(snapshot);
      },
      onError: reject
    });
  });

describe("useSession against wrangler dev", () => {
  it("follows steps: state, messages, status and the last step", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    await mount(session);
    // The reset's transcript came over HTTP: the snapshot has only counts.
    await until(() => h().messages.length > 0, "the transcript");
    expect(h().messages).toEqual(await transcript(session));

    await act(async () => {
      await h().step(incr());
    });
    await act(async () => {
      await h().step(incr(2));
    });
    await until(() => h().lastStep?.step === 2, "the second step");
    expect(h().state).toMatchObject({ count: 3 });
    expect(h().status).toMatchObject({ steps: 2, episode: 1 });
    expect(h().messages).toEqual(await transcript(session));
    expect(h().connection).toBe("open");
    // A reset through the hook: a new episode, its defaults read back.
    await act(async () => {
      await h().reset();
    });
    await until(() => h().state?.count === 0, "the reset's state");
    expect(h().messages).toEqual(await transcript(session));
    expect(h().status).toMatchObject({ steps: 0, episode: 2 });
  });

  it("reads no transcript with transcript: false, and holds what arrives live", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    await session.step(incr());
    const before = (await transcript(session)).length;
    expect(before).toBeGreaterThan(0);
    await mount(session, false, { transcript: false });
    expect(h().messages).toEqual([]);
    await act(async () => {
      await h().step(incr(2));
    });
    await until(() => h().lastStep?.step === 2, "the second step");
    expect(h().messages).toEqual((await transcript(session)).slice(before));
  });

  it("resumes after its socket is cut: no event lost or repeated", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    await mount(session);
    await act(async () => {
      await h().step(incr());
    });
    await until(() => h().lastStep?.step === 1, "the first step");
    const from = h().events[0]!.seq - 1;
    sockets[0]!.terminate();
    await until(() => h().connection === "reconnecting", "the drop");
    // Steps by another client while this one is away.
    await session.step(incr());
    await session.step(incr(3));
    await until(() => h().lastStep?.step === 3, "the missed steps");
    expect(sockets.length).toBe(2);
    expect(h().connection).toBe("open");
    expect(h().events).toEqual(await logged(session, from));
    expect(h().state).toMatchObject({ count: 5 });
    expect(h().messages).toEqual(await transcript(session));
  });

  it("drops the events and messages of a step aborted in flight", async () => {
    const session = await client.createSession({ environment: "nap" });
    await session.reset();
    const start = (await mount(session)).lastSeq!;
    let stepped: Promise<unknown> | undefined;
    await act(async () => {
      // Resent with its idempotency key once the socket is back.
      stepped = h().step({ tool_calls: [toolCall("nap", { ms: 1500 })] });
    });
    await until(
      () => h().events.some((e) => e.type === "result"),
      "the nap's streamed result"
    );
    const inFlight = h().events.filter((e) => e.type === "result")[0]!.seq;
    expect(h().state).toMatchObject({ naps: 1 });
    const aborted = await nodeFetch(
      `${baseUrl}/__e2e/sessions/${session.id}/abort`,
      { method: "POST" }
    );
    expect(aborted.status).toBe(204);
    await act(async () => {
      await stepped;
    });
    await until(() => h().lastStep?.step === 1, "the resent step");
    const events = h().events;
    // The aborted step's result is gone; the resent one's is there once.
    expect(events.some((e) => e.seq === inFlight)).toBe(false);
    expect(events.filter((e) => e.type === "result")).toHaveLength(1);
    expect(events.some((e) => e.type === "step.aborted")).toBe(false);
    expect(h().state).toMatchObject({ naps: 1 });
    expect(h().keys).toEqual([
      { tool: "nap", name: "naps", entries: 1, objects: 1 }
    ]);
    expect(h().messages).toEqual(await transcript(session));
    // What is left is what the server logged, minus what it marked aborted.
    const log = await logged(session, start);
    const marks = log.filter((e) => e.type === "step.aborted");
    expect(marks).toHaveLength(1);
    const mark = marks[0] as EventFrame & { first_seq: number };
    expect(events).toEqual(
      log.filter((e) => e.seq < mark.first_seq || e.seq > mark.seq)
    );
  });

  it("opens one socket under StrictMode's double mount", async () => {
    const session = await client.createSession({ environment: "counter" });
    await session.reset();
    await mount(session, true);
    await act(async () => {
      await h().step(incr());
    });
    await until(() => h().lastStep?.step === 1, "the step");
    expect(sockets).toHaveLength(1);
    expect(h().state).toMatchObject({ count: 1 });
  });

  it("reads the state and keys a cut snapshot left out, and merges them into the view", async () => {
    const session = await client.createSession({ environment: "ledger" });
    await session.reset();
    // `a` takes all but ~4 KiB of the snapshot's 1 MiB: `b` and most of
    // the 60 keys are left for the HTTP reads.
    await session.step({
      tool_calls: [
        toolCall("pad", { key: "a", kb: 1020 }, "c0"),
        toolCall("pad", { key: "b", kb: 4 }, "c1"),
        toolCall("spread", { keys: 60 }, "c2")
      ]
    });
    const cut = await firstSnapshot(session);
    expect(cut).toMatchObject({ truncated: true });
    expect(Object.keys(cut.state)).toEqual(["a"]);
    expect(cut.keys.length).toBeLessThan(60);
    expect(cut.state_next_cursor).toBeDefined();
    expect(cut.keys_next_cursor).toBeDefined();

    await mount(session);
    await until(
      () => h().state?.b !== undefined && h().keys.length === 60,
      "the rest of the snapshot"
    );
    expect(h().state).toEqual(await session.state());
    expect(h().keys).toEqual((await session.keys()).keys);
    expect(h().error).toBeUndefined();
    // Events go on from the merged view: a second spread counts on all 60.
    await act(async () => {
      await h().step({ tool_calls: [toolCall("spread", { keys: 60 })] });
    });
    await until(() => h().lastStep?.step === 2, "the second spread");
    expect(h().keys).toEqual((await session.keys()).keys);
    expect(h().keys.every((k) => k.entries === 2 && k.objects === 2)).toBe(
      true
    );
  }, 60_000);

  it("renders only the new rows of a 10 000-event session", async () => {
    const session = await client.createSession({
      environment: "counter",
      task: { target: 1_000_000 }
    });
    await session.reset();
    // 64 calls a step (the most an action may make): a step is about 260 events.
    for (let i = 0; i < 39; i++) await session.step(incr(64));
    await mount(session);
    await until(() => h().messages.length > 2_000, "the transcript");
    expect(h().lastSeq).toBeGreaterThanOrEqual(10_000);
    const before = h().messages;
    messageRenders = [];
    eventRenders = [];
    await act(async () => {
      await h().step(incr());
    });
    await until(() => h().lastStep?.step === 40, "the step");
    const added = h().messages.slice(before.length);
    expect(added.length).toBeGreaterThan(1);
    // Old rows kept their objects, so memo skipped them.
    expect(h().messages.slice(0, before.length)).toEqual(before);
    expect(
      h()
        .messages.slice(0, before.length)
        .every((m, i) => m === before[i])
    ).toBe(true);
    expect(new Set(messageRenders)).toEqual(new Set(added));
    expect(new Set(eventRenders)).toEqual(new Set(h().events));
  }, 60_000);
});
