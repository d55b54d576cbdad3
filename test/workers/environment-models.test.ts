import {
  createExecutionContext,
  env,
  waitOnExecutionContext
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { catalog } from "../../examples/catalog/index";
import { counter } from "../../examples/counter/index";
import type { RoostBindings } from "../../src/http/env";
import {
  type EnvironmentInfo,
  type EnvironmentsResponse,
  EnvironmentsResponseSchema,
  type RunStatus
} from "../../src/protocol";
import { createRoost } from "../../src/roost";
import { scriptedModel } from "../../src/runner/scripted-model";
import {
  BASE,
  call,
  createResetSession,
  fetchWorker,
  json,
  send
} from "./helpers";

// The environment listing names the models a tree's runs may ask for, the
// default first, so a page can say whether a scripted stand-in answers.

const listed = async (response: Response) => {
  expect(response.status).toBe(200);
  const body = await json<EnvironmentsResponse>(response);
  // What the OpenAPI document promises.
  expect(EnvironmentsResponseSchema().safeParse(body).success).toBe(true);
  const byName = (name: string): EnvironmentInfo =>
    body.environments.find((e) => e.name === name)!;
  return byName;
};

/** The test worker with model settings added to the pool's bindings. */
const withSettings = (settings: Record<string, string>) =>
  fetchWorker({ ...env, ...settings } as RoostBindings, "/v1/environments");

describe("the models in the environment listing", () => {
  it("names the tree's own model as the default when none is configured, and a run gets it", async () => {
    const byName = await listed(await call("/v1/environments"));
    expect(byName("catalog").models).toEqual([
      { name: "scripted", source: "environment" }
    ]);
    // No tree, no runs: nothing to name.
    expect(byName("counter")).not.toHaveProperty("models");

    const s = await createResetSession({ environment: "catalog" });
    const started = await s.call(
      "/runs",
      send("POST", { prompt: "Dog food?" })
    );
    expect(started.status).toBe(202);
    const { run_id } = await json<{ run_id: string }>(started);
    const run = await json<RunStatus>(await s.call(`/runs/${run_id}?wait=20`));
    expect(run.model).toBe(byName("catalog").models![0]!.name);
  });

  it("puts a configured OpenAI-compatible model first", async () => {
    const byName = await listed(
      await withSettings({
        ROOST_MODEL_BASE_URL: "http://127.0.0.1:9/v1",
        ROOST_MODEL: "some-model"
      })
    );
    expect(byName("catalog").models).toEqual([
      { name: "openai", source: "configured" },
      { name: "scripted", source: "environment" }
    ]);
  });

  it("lists createRoost's own models before the environment's", async () => {
    const roost = createRoost({
      environments: [catalog, counter],
      models: {
        mine: () => scriptedModel([], { name: "mine" }),
        // A factory that finds its settings missing offers nothing.
        absent: () => undefined
      }
    });
    const ctx = createExecutionContext();
    const response = await roost.fetch(
      new Request(`${BASE}/v1/environments`) as Parameters<
        typeof roost.fetch
      >[0],
      env as unknown as RoostBindings,
      ctx
    );
    await waitOnExecutionContext(ctx);
    const byName = await listed(response);
    expect(byName("catalog").models).toEqual([
      { name: "mine", source: "configured" },
      { name: "scripted", source: "environment" }
    ]);
  });

  it("still lists the environments when a model setting is wrong, leaving the models out", async () => {
    const byName = await listed(
      await withSettings({
        ROOST_MODEL_BASE_URL: "http://127.0.0.1:9/v1",
        ROOST_MODEL: "some-model",
        ROOST_MODEL_MODE: "telepathy"
      })
    );
    expect(byName("catalog").tree).toBeDefined();
    expect(byName("catalog")).not.toHaveProperty("models");
  });
});
