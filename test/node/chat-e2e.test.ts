// The chat endpoint under wrangler dev, consumed by the AI SDK's own
// transport: DefaultChatTransport validates every chunk against the SDK's
// schema, and readUIMessageStream builds the message useChat would show.
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, inject, it } from "vitest";
import {
  decideCompletion as decide,
  fakeOpenAIRequests,
  releaseFakeOpenAI,
  scriptFakeOpenAI
} from "./fake-openai";

const base = inject("baseUrl");
const fake = inject("fakeOpenAIUrl");

const catalogSession = async () => {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "catalog" })
  });
  const { session_id: id, token } = (await res.json()) as {
    session_id: string;
    token: string;
  };
  await fetch(`${base}/v1/sessions/${id}/reset`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`
    },
    body: "{}"
  });
  return { id, token };
};

const transportFor = (
  session: { id: string; token: string },
  body: Record<string, unknown> = {}
) =>
  new DefaultChatTransport<UIMessage>({
    api: `${base}/v1/sessions/${session.id}/chat`,
    headers: { authorization: `Bearer ${session.token}` },
    body
  });

const userMessage = (text: string): UIMessage => ({
  id: "u1",
  role: "user",
  parts: [{ type: "text", text }]
});

/** The last message readUIMessageStream built from a stream of chunks. */
const finalMessage = async (
  stream: Parameters<typeof readUIMessageStream>[0]["stream"]
): Promise<UIMessage> => {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({
    stream,
    terminateOnError: true
  })) {
    last = message;
  }
  if (last === undefined) throw new Error("no message");
  return last;
};

type Part = UIMessage["parts"][number] & Record<string, unknown>;
const partsOf = (m: UIMessage) => m.parts as Part[];
const texts = (m: UIMessage) =>
  partsOf(m)
    .filter((p) => p.type === "text")
    .map((p) => p.text);

describe("POST /v1/sessions/:id/chat with the AI SDK's DefaultChatTransport", () => {
  it("streams a catalog run that readUIMessageStream turns into one message", async () => {
    const session = await catalogSession();
    const transport = transportFor(session, { model: "scripted" });
    const stream = await transport.sendMessages({
      chatId: "chat-scripted",
      messages: [userMessage("Which cat toys are rated 4.5 or higher?")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined
    });
    const message = await finalMessage(stream);
    expect(message.role).toBe("assistant");
    expect(message.metadata).toMatchObject({
      state: "completed",
      outcome: "answered",
      passes: 3
    });
    expect(texts(message)).toEqual([
      "Searching the catalog.",
      "Looking up matching products.",
      "Searching the catalog.",
      "Counting products per category.",
      "Writing the answer.",
      'Here is what I found for "Which cat toys are rated 4.5 or higher?", with counts per category.'
    ]);
    // Server-run tools as dynamic tool parts, with their output.
    const tools = partsOf(message).filter((p) => p.type === "dynamic-tool");
    expect(tools.map((p) => [p.toolName, p.state])).toEqual([
      ["query", "output-available"],
      ["aggregate", "output-available"]
    ]);
    expect(tools[0]!.input).toMatchObject({ collection: "products" });
    // The Results the tools stored, as data parts.
    const results = partsOf(message).filter((p) => p.type === "data-result");
    expect(results.map((p) => (p.data as { tool: string }).tool)).toEqual([
      "query",
      "aggregate"
    ]);
    const found = results[0]!.data as { objects: { animal: string }[] };
    expect(found.objects.length).toBeGreaterThan(0);
    expect(found.objects.every((o) => o.animal === "cat")).toBe(true);
    // The decisions, and where the run ended.
    const decisions = partsOf(message).filter(
      (p) => p.type === "data-decision"
    );
    expect(decisions.map((p) => (p.data as { option: string }).option)).toEqual(
      ["search", "query", "search", "aggregate", "text_response"]
    );
    expect(
      partsOf(message).filter((p) => p.type === "step-start")
    ).toHaveLength(3);
    expect(partsOf(message).find((p) => p.type === "data-tree")).toMatchObject({
      data: { state: "completed", outcome: "answered" }
    });
    // Over: nothing to resume.
    expect(
      await transport.reconnectToStream({ chatId: "chat-scripted" })
    ).toBeNull();
  });

  it("resumes a run still going: a reconnect replays it from the start and the message has every part once", async () => {
    const hold = `chat-${crypto.randomUUID()}`;
    await scriptFakeOpenAI(fake, [
      decide({ function_name: "search", message_update: "Searching." }),
      decide({
        function_name: "query",
        function_inputs: {
          collection: "products",
          filters: [{ field: "animal", op: "eq", value: "cat" }],
          limit: 3
        }
      }),
      {
        ...decide({
          function_name: "text_response",
          function_inputs: { text: "Three cat products, found." },
          end_actions: true
        }),
        hold
      }
    ]);
    const session = await catalogSession();
    const transport = transportFor(session, { model: "openai" });
    const abort = new AbortController();
    const stream = await transport.sendMessages({
      chatId: "chat-resume",
      messages: [userMessage("Any cat products?")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: abort.signal
    });
    // Read until the first pass's tool returned, while the model's next
    // answer is held: the run is mid-way.
    const reader = stream.getReader();
    const before: { type: string }[] = [];
    while (!before.some((c) => c.type === "tool-output-available")) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      before.push(value!);
    }
    await expect
      .poll(async () => (await fakeOpenAIRequests(fake)).length)
      .toBe(3);
    // The page goes away (a reload): the stream is dropped, the run goes on.
    abort.abort();
    await reader.cancel().catch(() => {});

    const resumed = await transport.reconnectToStream({
      chatId: "chat-resume"
    });
    expect(resumed).not.toBeNull();
    // Another chat has nothing going.
    expect(
      await transport.reconnectToStream({ chatId: "another-chat" })
    ).toBeNull();
    await releaseFakeOpenAI(fake, hold);
    const message = await finalMessage(resumed!);
    expect(texts(message)).toEqual([
      "Searching.",
      "Three cat products, found."
    ]);
    const tools = partsOf(message).filter((p) => p.type === "dynamic-tool");
    expect(tools.map((p) => [p.toolName, p.state])).toEqual([
      ["query", "output-available"]
    ]);
    const results = partsOf(message).filter((p) => p.type === "data-result");
    expect(results).toHaveLength(1);
    expect((results[0]!.data as { objects: unknown[] }).objects).toHaveLength(
      3
    );
    expect(message.metadata).toMatchObject({
      state: "completed",
      outcome: "answered"
    });
    // The replay began where the first stream did: same message id.
    expect(message.id).toBe((before[0] as { messageId?: string }).messageId);
    expect(
      await transport.reconnectToStream({ chatId: "chat-resume" })
    ).toBeNull();
  });

  it("rejects what useChat shows as an error: a 409 while a run is going", async () => {
    const hold = `chat-409-${crypto.randomUUID()}`;
    await scriptFakeOpenAI(fake, [
      {
        ...decide({
          function_name: "text_response",
          function_inputs: { text: "Done." }
        }),
        hold
      }
    ]);
    const session = await catalogSession();
    const transport = transportFor(session, { model: "openai" });
    const first = await transport.sendMessages({
      chatId: "busy",
      messages: [userMessage("first")],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined
    });
    await expect(
      transport.sendMessages({
        chatId: "busy",
        messages: [userMessage("second")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined
      })
    ).rejects.toThrow(/still going/);
    await releaseFakeOpenAI(fake, hold);
    expect(texts(await finalMessage(first))).toEqual(["Done."]);
  });
});
