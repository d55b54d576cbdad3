/**
 * A scriptable stand-in for an OpenAI-compatible chat server: tests queue
 * canned replies with POST /__script, and read what the adapter sent with
 * GET /__requests. Every other request takes the next canned reply.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { answerAsVllm, STUB_MODELS } from "./fake-vllm";
import { listenPort } from "./helpers/test-port";

export interface CannedResponse {
  /** Default 200. */
  status?: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is instead of `body`, for replies that are not JSON. */
  text?: string;
  /**
   * Held until a POST /__release names it: a test decides when the model
   * answers, so it can act while a run is mid-pass.
   */
  hold?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when it was not JSON. */
  body: unknown;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>`, without the `/v1`. */
  url: string;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Starts the fake on a free port of 127.0.0.1. */
export const startFakeOpenAI = async (): Promise<FakeOpenAI> => {
  let queue: CannedResponse[] = [];
  let received: RecordedRequest[] = [];
  const held = new Map<string, () => void>();
  const released = new Set<string>();
  const server = createServer(async (req, res) => {
    const send = (status: number, body: string, type: string) => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    const text = await readBody(req);
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    if (req.method === "POST" && path === "/__script") {
      // A new script starts a new test: forget what earlier ones received.
      const { responses } = JSON.parse(text) as {
        responses: CannedResponse[];
      };
      queue = [...responses];
      received = [];
      return send(204, "", "text/plain");
    }
    if (req.method === "POST" && path === "/__release") {
      const { hold } = JSON.parse(text) as { hold: string };
      released.add(hold);
      held.get(hold)?.();
      return send(204, "", "text/plain");
    }
    if (req.method === "GET" && path === "/__requests") {
      return send(200, JSON.stringify(received), "application/json");
    }
    // The vLLM stand-in answers by itself, so tests share it unscripted
    // (and it stays out of what scripted tests received)
    const asked = parse(text) as { model?: unknown };
    if (STUB_MODELS.includes(String(asked?.model)))
      return answerAsVllm(JSON.parse(text), res);
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers[key] = value;
    }
    received.push({
      method: req.method ?? "GET",
      path,
      headers,
      body: parse(text)
    });
    const next = queue.shift();
    if (!next) {
      return send(
        500,
        JSON.stringify({ error: { message: "fake-openai: nothing scripted" } }),
        "application/json"
      );
    }
    const hold = next.hold;
    if (hold !== undefined && !released.has(hold)) {
      await new Promise<void>((resolve) => held.set(hold, resolve));
    }
    if (next.text !== undefined)
      return send(next.status ?? 200, next.text, "text/plain");
    return send(
      next.status ?? 200,
      JSON.stringify(next.body ?? {}),
      "application/json"
    );
  });
  const asked = await listenPort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(asked, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      })
  };
};

/** Replaces the queue of replies (and clears the recorded requests). */
export const scriptFakeOpenAI = async (
  url: string,
  responses: CannedResponse[]
): Promise<void> => {
  const res = await fetch(`${url}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ responses })
  });
  if (!res.ok) throw new Error(`fake-openai script failed: ${res.status}`);
};

/** What the fake received since the last script. */
export const fakeOpenAIRequests = async (
  url: string
): Promise<RecordedRequest[]> =>
  (await (await fetch(`${url}/__requests`)).json()) as RecordedRequest[];

/** Lets a reply scripted with `hold` go. */
export const releaseFakeOpenAI = async (
  url: string,
  hold: string
): Promise<void> => {
  const res = await fetch(`${url}/__release`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ hold })
  });
  if (!res.ok) throw new Error(`fake-openai release failed: ${res.status}`);
};

/** A chat completion whose tool call is the `decide` function. */
export const decideCompletion = (
  decision: Record<string, unknown>
): CannedResponse => ({
  body: {
    id: "x",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "t",
              type: "function",
              function: {
                name: "decide",
                arguments: JSON.stringify({
                  reasoning: "",
                  message_update: "",
                  impossible: false,
                  function_inputs: {},
                  end_actions: false,
                  ...decision
                })
              }
            }
          ]
        }
      }
    ]
  }
});

/**
 * The API key the end-to-end server's `openai` model sends: recognizable,
 * so a test can show it reaches the model server and nothing else.
 */
export const E2E_MODEL_API_KEY = "sk-roost-e2e-9d41c7b05e";

/** A plain chat completion whose answer is `content`. */
export const textCompletion = (content: string): CannedResponse => ({
  body: {
    id: "x",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant", content }
      }
    ]
  }
});
