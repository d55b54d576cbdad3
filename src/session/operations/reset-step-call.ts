/** @module The episode's operations: reset, step, and a tool called directly. */

import * as z from "zod";
import {
  checkToolCalls,
  resetEpisode,
  stepEpisode
} from "../../environment/episode-machine";
import { episodeEnvironment } from "../../environment/episode-tools";
import { resolveTask, taskRefOf } from "../../environment/task";
import {
  JsonObjectSchema,
  NameSchema,
  OpenAIToolSchema,
  ResetRequestSchema,
  ResetResponseSchema,
  StepRequestSchema,
  StepResponseSchema,
  ToolInvocationResponseSchema
} from "../../protocol";
import { checkInitialState, seedState } from "../../state/initial-state";
import { messageText } from "../../state/prepare-messages";
import { directCall } from "../direct-call";
import { sessionJudges } from "../judges";
import { defineOperation, TOOL_EVENTS, WRITE_EVENTS } from "./define";

export const reset = defineOperation({
  input: ResetRequestSchema,
  output: ResetResponseSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: () => "reset", hashed: (input) => input },
  events: ["reset", "tree.completed", ...TOOL_EVENTS, ...WRITE_EVENTS],
  handle: (rt, request, idem) =>
    rt.commits.mutate("reset", idem, async (m) => {
      // The creation task is the default; either way it goes through the
      // environment's schema, so defaults apply to an omitted task too.
      const task = resolveTask(
        m.environment,
        request.task_index === undefined
          ? { task: request.task === undefined ? m.row.task : request.task }
          : {
              task_index: request.task_index,
              ...(request.split === undefined ? {} : { split: request.split })
            }
      );
      const initial = request.state ?? m.row.initialState;
      // Checked before anything is written or streamed: a bad state is a
      // 400 that leaves no trace, not even an aborted reset in the log.
      if (initial !== undefined) {
        checkInitialState(m.environment.state, initial, {
          maxValueBytes: rt.shared.options.limits.stateValueBytes
        });
      }
      // The dataset task it plays, for the task statistics: the one it
      // names, none for a task given as it is, else the creation's.
      m.row.episodeRef =
        request.task_index !== undefined
          ? taskRefOf(request)
          : request.task === undefined
            ? (m.row.taskRef ?? null)
            : null;
      m.emit("reset", {});
      rt.runs.cancelActiveOnCommit(m, "The session was reset.");
      // Seeded before the environment's reset, which may read or change it.
      if (initial !== undefined) seedState(m.parts.state, initial);
      // As a step's: a played agent may move first.
      return resetEpisode(m.environment, m.row, m.parts, task, {
        ...rt.shared.executeOptions(m.hooks),
        onTurn: (a) => m.actAs(a),
        judges: sessionJudges(rt.shared.sql, rt.models, m.row.episode, () =>
          rt.shared.now()
        )
      });
    })
});

export const step = defineOperation({
  input: StepRequestSchema,
  output: StepResponseSchema,
  scope: "act",
  agent: "turn",
  mutates: true,
  idempotency: {
    scope: () => "step",
    // A one-agent step's hash stays what it was.
    hashed: ({ action, agent }) =>
      agent === undefined ? { action } : { action, agent }
  },
  events: ["step", ...TOOL_EVENTS, ...WRITE_EVENTS],
  handle: (rt, { action, agent }, idem) =>
    rt.commits.mutate("step", idem, async (m) => {
      const limits = rt.shared.options.limits;
      checkToolCalls(action, limits.toolCallsPerAction);
      // Dispatch parsed the action as a message: only its size is left to
      // check before the transcript takes it.
      messageText(action, 0, limits.stateValueBytes);
      const out = await stepEpisode(m.environment, m.row, m.parts, action, {
        ...rt.shared.executeOptions(m.hooks),
        actionChecked: true,
        ...(agent === undefined ? {} : { agent }),
        // Each turn's events are its agent's, played turns' included.
        onTurn: (a) => m.actAs(a),
        judges: sessionJudges(rt.shared.sql, rt.models, m.row.episode, () =>
          rt.shared.now()
        )
      });
      m.recordStep({ step: m.row.steps, ...out.kept });
      // Absent for an environment without rubrics or agents, so its
      // frames and answers stay byte for byte what they were.
      const components = {
        ...(out.reward_components === undefined
          ? {}
          : { reward_components: out.reward_components }),
        ...(out.agents === undefined
          ? {}
          : {
              agent: out.agents.agent,
              turn: out.agents.turn,
              rewards: out.agents.rewards
            })
      };
      m.emit("step", {
        step: m.row.steps,
        reward: out.reward,
        done: out.done,
        truncated: out.truncated,
        ...components
      });
      return {
        observations: out.observations,
        reward: out.reward,
        done: out.done,
        truncated: out.truncated,
        ...components
      };
    })
});

export const call = defineOperation({
  input: () => z.object({ tool: NameSchema(), arguments: JsonObjectSchema() }),
  output: ToolInvocationResponseSchema,
  scope: "act",
  mutates: true,
  idempotency: {
    scope: ({ tool }) => `tools/${tool}`,
    hashed: (input) => ({ arguments: input.arguments })
  },
  events: [...TOOL_EVENTS, ...WRITE_EVENTS],
  handle: (rt, c, idem) =>
    rt.commits.mutate("call", idem, (m) => directCall(rt.shared, m, c))
});

/** The tools the running episode offers (MCP's tools/list, OpenEnv's list_tools). */
export const tools = defineOperation({
  input: () => z.object({}),
  output: () => z.object({ tools: z.array(OpenAIToolSchema()) }),
  scope: "observe",
  agent: "view",
  mutates: false,
  events: [],
  // An agent's credential lists the tools its agent may call.
  handle: (rt, _q, _idem, grant) =>
    rt.read((_parts, environment, row) => {
      const episode = episodeEnvironment(environment, row.episodeTools);
      const own =
        grant?.agent === undefined
          ? episode
          : episodeEnvironment(
              episode,
              environment.agents?.[grant.agent]?.tools
            );
      return { tools: [...own.toolSchemas] };
    })
});
