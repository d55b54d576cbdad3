/**
 * @module mcp-everything's tools for tasks (MCP's tasks extension): how
 * each runs as a task (`taskSupport`), one that fails as a protocol error
 * (`CallRefused`), ones that ask their client while running as a task
 * (the task waits in `input_required` until tasks/update answers), and one
 * that asks before a task is made (`asksFirst`).
 */

import type { ClientRequest, ToolContext } from "roost-edge/core";
import { CallRefused, tool } from "roost-edge/core";
import * as z from "zod";

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      done();
    });
  });

const confirm = (message: string): ClientRequest => ({
  method: "elicitation/create",
  params: {
    message,
    requestedSchema: {
      type: "object",
      properties: { confirm: { type: "boolean" } },
      required: ["confirm"]
    }
  }
});

const USER_NAME: ClientRequest = {
  method: "elicitation/create",
  params: {
    message: "What is your name?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"]
    }
  }
};

const ask = async (
  ctx: ToolContext,
  requests: Record<string, ClientRequest>
) => {
  if (ctx.client === undefined)
    throw new Error("only an MCP client can be asked");
  return await ctx.client.ask(requests);
};

const content = (answer: Record<string, unknown> | undefined) =>
  (answer?.content ?? {}) as Record<string, unknown>;

export const taskTools = {
  greet: tool({
    description: "Greets at once; never a task.",
    input: z.object({ name: z.string() }),
    taskSupport: "forbidden",
    run: ({ name }) => `Hello, ${name}!`
  }),
  // The region travels as the header Mcp-Param-Region too (SEP-2243).
  test_custom_header: tool({
    description: "Echoes a region that is also sent as a header.",
    input: z.object({
      region: z
        .string()
        .describe("Where to run")
        .meta({ "x-mcp-header": "Region" })
    }),
    run: ({ region }) => `Region: ${region}`
  }),
  // It takes its time for an MCP client only: a model's step (and the
  // validator's random episodes) would wait a minute for nothing.
  slow_compute: tool({
    description:
      "Takes `seconds` to compute when an MCP client calls it; a task when the client takes tasks.",
    input: z.object({
      seconds: z.number().min(0).max(120),
      label: z.string().optional()
    }),
    taskSupport: "optional",
    timeoutMs: 130_000,
    run: async ({ seconds, label }, ctx) => {
      if (ctx.client !== undefined) await pause(seconds * 1000, ctx.signal);
      return `Computed ${label ?? "it"} in ${seconds} s.`;
    }
  }),
  failing_job: tool({
    description: "Runs only as a task, and reports an error to the model.",
    input: z.object({}),
    taskSupport: "required",
    run: async () => {
      await pause(500);
      throw new Error("The job failed, as it always does.");
    }
  }),
  protocol_error_job: tool({
    description: "Runs only as a task, and is refused as a protocol error.",
    input: z.object({}),
    taskSupport: "required",
    run: () => {
      throw new CallRefused("this job always refuses to run");
    }
  }),
  confirm_delete: tool({
    description: "Deletes a file once the user confirms.",
    input: z.object({ filename: z.string() }),
    taskSupport: "optional",
    run: async ({ filename }, ctx) => {
      const { confirmation } = await ask(ctx, {
        confirmation: confirm(`Delete ${filename}?`)
      });
      return content(confirmation).confirm === true
        ? `Deleted ${filename}.`
        : `Kept ${filename}.`;
    }
  }),
  multi_input: tool({
    description: "Asks two things at once.",
    input: z.object({}),
    taskSupport: "optional",
    run: async (_args, ctx) => {
      const answers = await ask(ctx, {
        first: confirm("Proceed with the first part?"),
        second: confirm("Proceed with the second part?")
      });
      return `Answered: ${String(content(answers.first).name)} and ${String(content(answers.second).name)}.`;
    }
  }),
  test_tool_with_task: tool({
    description: "Asks the user's name, then greets them from a task.",
    input: z.object({}),
    taskSupport: "required",
    asksFirst: () => ({ user_name: USER_NAME }),
    run: async (_args, ctx) => {
      const { user_name } = await ask(ctx, { user_name: USER_NAME });
      return `Hello, ${String(content(user_name).name)}, from a task.`;
    }
  })
};
