// A step's reward components on OpenEnv's session channel, against wrangler
// dev, in exactly the places OpenEnv's Python clients read an observation's
// metadata: inside the observation (MCPClientBase._parse_result reads
// `obs_data.get("metadata", {})` into Observation.metadata; GenericEnvClient
// hands the observation over as a dict), and beside `reward`, where OpenEnv's
// proposed serializer fix promotes it and its clients then read
// `payload.get("metadata")`. The calculator's rubric is `exact` (weight 1)
// and the metric `format` (weight 0).
import { describe, expect, inject, it } from "vitest";
import { RewardComponentsSchema } from "../../src/protocol/index";
import {
  connect,
  expectObservation,
  type Reply
} from "./helpers/openenv-client";

const baseUrl = inject("baseUrl");
const calculatorBase = `${baseUrl}/v1/environments/calculator/openenv`;

/** Python json.dumps of a reset naming Roost's task (its spaces included). */
const RESET =
  '{"type": "reset", "data": {"task": {"question": "What is 6 * 7?", "answer": 42}}}';

/** What both kinds of client read as the observation's metadata, checked to be the same dict. */
const metadataOf = (reply: Reply): Record<string, unknown> | undefined => {
  const { observation } = expectObservation(reply);
  const inside = observation.metadata as Record<string, unknown> | undefined;
  expect(reply.data.metadata).toEqual(inside);
  if (inside !== undefined) {
    expect(typeof inside).toBe("object");
    expect(Array.isArray(inside)).toBe(false);
  }
  return inside;
};

const componentsOf = (reply: Reply) => {
  const components = metadataOf(reply)?.reward_components;
  expect(RewardComponentsSchema().safeParse(components).success).toBe(true);
  return components;
};

describe("Reward components on OpenEnv's wire", () => {
  it("MCPToolClient: call_tool observations carry each component in metadata; reset and list_tools carry none", async () => {
    const env = await connect(calculatorBase);
    const reset = await env.request(RESET);
    const resetMetadata = metadataOf(reset);
    // A reset scores nothing: the session's ids, no components.
    expect(resetMetadata).toMatchObject({ episode: 1 });
    expect(typeof resetMetadata?.session_id).toBe("string");
    expect(resetMetadata).not.toHaveProperty("reward_components");

    const listed = await env.request(
      '{"type": "step", "data": {"type": "list_tools"}}'
    );
    expect(metadataOf(listed)).toBeUndefined();
    expect(listed.data).not.toHaveProperty("metadata");

    const worked = await env.request(
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "calculator", "arguments": {"expression": "6 * 7"}}}'
    );
    expect(expectObservation(worked)).toMatchObject({
      reward: 0,
      done: false,
      observation: { tool_name: "calculator", result: { data: "42" } }
    });
    expect(componentsOf(worked)).toEqual({ exact: 0, format: 0 });

    // Submitted as text: right (exact, the reward) but not a plain number
    // (format, a metric: reported, never added).
    const submitted = await env.request(
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "submit_answer", "arguments": {"answer": "42"}}}'
    );
    expect(expectObservation(submitted)).toMatchObject({
      reward: 1,
      done: true,
      observation: { tool_name: "submit_answer", error: null }
    });
    const components = componentsOf(submitted);
    expect(components).toEqual({ exact: 1, format: 0 });
    // Declared order survives the trip: a trainer's columns stay put.
    expect(Object.keys(components as object)).toEqual(["exact", "format"]);
    await env.close();
  });

  it("GenericEnvClient: Roost's own step action gets the same metadata", async () => {
    const env = await connect(calculatorBase);
    await env.request(RESET);
    const step = await env.request(
      '{"type": "step", "data": {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "submit_answer", "arguments": "{\\"answer\\": 42}"}}]}}'
    );
    expect(expectObservation(step)).toMatchObject({ reward: 1, done: true });
    expect(metadataOf(step)).toEqual({
      reward_components: { exact: 1, format: 1 }
    });
    await env.close();
  });

  it("an environment without rubrics answers its steps without metadata, as before", async () => {
    const env = await connect(`${baseUrl}/v1/environments/counter/openenv`);
    await env.request('{"type": "reset", "data": {}}');
    const step = await env.request(
      '{"type": "step", "data": {"type": "call_tool", "tool_name": "incr", "arguments": {}}}'
    );
    expect(expectObservation(step).observation).not.toHaveProperty("metadata");
    expect(step.data).not.toHaveProperty("metadata");
    await env.close();
  });
});
