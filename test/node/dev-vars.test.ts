// `npm start` configured by the clone's .dev.vars, as the model pages tell
// a user to do: the model gateway reaches the upstream it names, with its
// key. A developer's own .dev.vars is moved aside while the server starts
// and put back once it listens, whatever happens.
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/index";
import { spawnNpmStart, stopNpmStart } from "./helpers/npm-start";
import { listenPort, testPort } from "./helpers/test-port";

const root = new URL("../..", import.meta.url).pathname;
const KEY = "sk-from-dev-vars";

interface Seen {
  path: string;
  authorization: string | undefined;
  model: unknown;
}

/** An OpenAI-compatible server on loopback that answers every chat completion with one line. */
const startUpstream = async () => {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text || "{}") as { model?: unknown };
    seen.push({
      path: new URL(req.url ?? "/", "http://upstream").pathname,
      authorization: req.headers.authorization,
      model: body.model
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "hello from upstream" },
            finish_reason: "stop"
          }
        ],
        usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 }
      })
    );
  });
  const asked = await listenPort();
  await new Promise<void>((resolve) =>
    server.listen(asked, "127.0.0.1", resolve)
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r()))
  };
};

describe("npm start with a .dev.vars in the clone", () => {
  const devVars = join(root, ".dev.vars");
  const backup = join(root, `.dev.vars.moved-aside-by-test-${process.pid}`);
  const cleanUps: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanUp of cleanUps.reverse()) await cleanUp();
  });

  it("reaches the model upstream it names, with its key, through a session's gateway", async () => {
    const upstream = await startUpstream();
    cleanUps.push(upstream.close);
    const port = await testPort();
    const inspectorPort = await testPort();
    // The clone's file is read as the server starts: the developer's own
    // is back once it listens (or failed to).
    if (existsSync(devVars)) renameSync(devVars, backup);
    try {
      writeFileSync(
        devVars,
        `ROOST_MODEL_BASE_URL=${upstream.url}\nROOST_MODEL_API_KEY=${KEY}\n`
      );
      const server = spawnNpmStart(
        ["--log-level", "warn"],
        port,
        inspectorPort,
        {
          projectVars: true
        }
      );
      cleanUps.push(() => stopNpmStart(server.child));
      await server.listening;
    } finally {
      if (existsSync(backup)) renameSync(backup, devVars);
      else rmSync(devVars, { force: true });
    }

    const base = `http://127.0.0.1:${port}`;
    const session = await createClient({ baseUrl: base }).createSession({
      environment: "counter"
    });
    await session.reset();
    const { token } = await session.mintToken({ scope: "model" });
    const openai = new OpenAI({
      baseURL: `${base}/v1/sessions/${session.id}/model/v1`,
      apiKey: token,
      maxRetries: 0
    });
    const answer = await openai.chat.completions.create({
      model: "local-model",
      messages: [{ role: "user", content: "hi" }]
    });
    expect(answer.choices[0]?.message.content).toBe("hello from upstream");
    expect(upstream.seen).toEqual([
      {
        path: "/v1/chat/completions",
        authorization: `Bearer ${KEY}`,
        model: "local-model"
      }
    ]);
  }, 120_000);
});
