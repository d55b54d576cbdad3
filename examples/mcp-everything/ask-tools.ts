/**
 * @module mcp-everything's tools that ask their client mid-call
 * (`ctx.client.ask`): a question for the user (elicitation), a completion
 * from the client's model (sampling), the client's folders (roots). A
 * client of the handshake era is asked over the call's stream; a
 * stateless one answers input-required results, and the call runs again.
 */

import type { ClientRequest, JsonObject, ToolContext } from "roost-edge/core";
import { tool } from "roost-edge/core";
import * as z from "zod";

type Answers = Record<string, Record<string, unknown>>;

/** Asks, or says why it cannot (a caller that is no MCP client). */
const ask = async (
  ctx: ToolContext,
  requests: Record<string, ClientRequest>
): Promise<Answers> => {
  if (ctx.client === undefined) {
    throw new Error("only an MCP client can be asked");
  }
  return await ctx.client.ask(requests);
};

/** One string field the user fills in. */
const question = (message: string, field: string, type = "string") => ({
  method: "elicitation/create" as const,
  params: {
    message,
    requestedSchema: {
      type: "object",
      properties: { [field]: { type } },
      required: [field]
    }
  }
});

const sample = (text: string, maxTokens: number) => ({
  method: "sampling/createMessage" as const,
  params: {
    messages: [{ role: "user", content: { type: "text", text } }],
    maxTokens
  }
});

const ROOTS = { method: "roots/list" as const, params: {} };

/** A field of an elicitation's answer. */
const field = (answer: Record<string, unknown> | undefined, name: string) => {
  const value = (answer?.content as Record<string, unknown> | undefined)?.[
    name
  ];
  return typeof value === "string" ? value : "unknown";
};

/** A sampling answer's text. */
const sampled = (answer: Record<string, unknown> | undefined) => {
  const text = (answer?.content as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text : "no response";
};

const rootsOf = (answer: Record<string, unknown> | undefined) =>
  Array.isArray(answer?.roots) ? answer.roots.length : 0;

const elicited = (
  prefix: string,
  answer: Record<string, unknown> | undefined
) =>
  `${prefix}: action=${String(answer?.action)}, content=${JSON.stringify(answer?.content ?? {})}`;

const DEFAULTS_FORM: JsonObject = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: {
      type: "string",
      description: "User status",
      enum: ["active", "inactive", "pending"],
      default: "active"
    },
    verified: {
      type: "boolean",
      description: "Verification status",
      default: true
    }
  },
  required: []
};

const options = (prefix: string, title: string) =>
  [1, 2, 3].map((n) => ({ const: `${prefix}${n}`, title: `${title} ${n}` }));

const ENUMS_FORM: JsonObject = {
  type: "object",
  properties: {
    untitledSingle: {
      type: "string",
      description: "Select one option",
      enum: ["option1", "option2", "option3"]
    },
    titledSingle: {
      type: "string",
      description: "Select one option with titles",
      oneOf: options("value", "Option")
    },
    legacyEnum: {
      type: "string",
      description: "Select one option (legacy)",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"]
    },
    untitledMulti: {
      type: "array",
      description: "Select multiple options",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["option1", "option2", "option3"] }
    },
    titledMulti: {
      type: "array",
      description: "Select multiple options with titles",
      minItems: 1,
      maxItems: 3,
      items: { anyOf: options("value", "Choice") }
    }
  },
  required: []
};

const form = (message: string, requestedSchema: JsonObject): ClientRequest => ({
  method: "elicitation/create",
  params: { message, requestedSchema }
});

export const askTools = {
  test_sampling: tool({
    description: "Asks the client's model to complete a prompt.",
    input: z.object({ prompt: z.string().describe("The prompt to send") }),
    run: async ({ prompt }, ctx) => {
      const { reply } = await ask(ctx, { reply: sample(prompt, 100) });
      return `LLM response: ${sampled(reply)}`;
    }
  }),
  test_elicitation: tool({
    description: "Asks the user a question.",
    input: z.object({ message: z.string().describe("What to ask") }),
    run: async ({ message }, ctx) => {
      const { response } = await ask(ctx, {
        response: question(message, "response")
      });
      return elicited("User response", response);
    }
  }),
  test_elicitation_sep1034_defaults: tool({
    description: "Asks with a default for every field.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { answer } = await ask(ctx, {
        answer: form(
          "Please review and update the form fields with defaults",
          DEFAULTS_FORM
        )
      });
      return elicited("Elicitation completed", answer);
    }
  }),
  test_elicitation_sep1330_enums: tool({
    description: "Asks with every kind of choice.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { answer } = await ask(ctx, {
        answer: form("Please select options from the enum fields", ENUMS_FORM)
      });
      return elicited("Elicitation completed", answer);
    }
  }),
  test_missing_capability: tool({
    description: "Needs sampling: refused for a client without it.",
    input: z.object({}),
    run: async (_args, ctx) => {
      await ask(ctx, { check: sample("Say yes.", 5) });
      return "Success";
    }
  }),
  test_input_required_result_elicitation: tool({
    description: "Asks the user's name.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { user_name } = await ask(ctx, {
        user_name: question("What is your name?", "name")
      });
      return `Hello, ${field(user_name, "name")}!`;
    }
  }),
  test_input_required_result_sampling: tool({
    description: "Asks the client's model a question.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { sample_request } = await ask(ctx, {
        sample_request: sample("What is the capital of France?", 100)
      });
      return `Sampling result: ${sampled(sample_request)}`;
    }
  }),
  test_input_required_result_list_roots: tool({
    description: "Asks the client's roots.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { roots_request } = await ask(ctx, { roots_request: ROOTS });
      return `Found ${rootsOf(roots_request)} root(s)`;
    }
  }),
  test_input_required_result_request_state: tool({
    description: "Asks for a confirmation, resumed from its request state.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { confirm } = await ask(ctx, {
        confirm: question("Please confirm", "ok", "boolean")
      });
      const ok = (confirm?.content as { ok?: unknown } | undefined)?.ok;
      return ok === true
        ? "state-ok: requestState validated"
        : "state-not-ok: not confirmed";
    }
  }),
  test_input_required_result_multiple_inputs: tool({
    description: "Asks three things at once.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const a = await ask(ctx, {
        user_name: question("What is your name?", "name"),
        greeting: sample("Generate a greeting", 50),
        client_roots: ROOTS
      });
      return `Name: ${field(a.user_name, "name")}; Greeting: ${sampled(a.greeting)}; Roots: ${rootsOf(a.client_roots)}`;
    }
  }),
  test_input_required_result_multi_round: tool({
    description: "Asks twice, one question after the other.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const { step1 } = await ask(ctx, {
        step1: question("Step 1: What is your name?", "name")
      });
      const { step2 } = await ask(ctx, {
        step2: question("Step 2: What is your favorite color?", "color")
      });
      return `Multi-round complete for ${field(step1, "name")} who likes ${field(step2, "color")}`;
    }
  }),
  test_input_required_result_tampered_state: tool({
    description: "Asks for a confirmation; a changed request state is refused.",
    input: z.object({}),
    run: async (_args, ctx) => {
      await ask(ctx, { confirm: question("Please confirm", "ok", "boolean") });
      return "integrity-ok: state verified";
    }
  }),
  test_input_required_result_capabilities: tool({
    description: "Asks only for what the client declared.",
    input: z.object({}),
    run: async (_args, ctx) => {
      const declared = ctx.client?.capabilities ?? {};
      const requests: Record<string, ClientRequest> = {};
      if (declared.elicitation) {
        requests.elicit_input = question("Elicitation input", "value");
      }
      if (declared.sampling)
        requests.sample_input = sample("Sample request", 50);
      if (Object.keys(requests).length === 0) {
        return "No supported capabilities declared";
      }
      const answers = await ask(ctx, requests);
      return `capabilities-ok: received ${Object.keys(answers).join(",")}`;
    }
  })
};
