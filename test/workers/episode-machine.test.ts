// The episode contract on a real session object, driven over RPC as every
// transport drives it (op(name, input)); plain Node runs the same contract
// on the in-memory sessions (test/node/episode-machine.test.ts).

import {
  type EpisodeDriver,
  runEpisodeContract
} from "../../src/environment/episode-machine.case";
import { fromErrorBody } from "../../src/errors";
import { contentText } from "../../src/messages/build";
import type { Content } from "../../src/messages/schema";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import type { RpcResult } from "../../src/session/rpc";
import { newSession } from "./session-helpers";

/** The value, or the refusal thrown as the RoostError it was in the object. */
const value = <T>(r: RpcResult<T>): T => {
  if (!r.ok) throw fromErrorBody(r.error);
  return r.value;
};

const texts = (messages: { content?: Content | null }[]) =>
  messages.map((m) => contentText(m.content));

const objectDriver = async (): Promise<EpisodeDriver> => {
  const { stub } = await newSession("tally");
  return {
    reset: async (task) => {
      const out = value(
        await stub.op("reset", task === undefined ? {} : { task }, SERVER_GRANT)
      );
      return {
        observations: texts(out.observations),
        tools: out.tools.map((t) => t.function.name)
      };
    },
    step: async (action) => {
      const out = value(await stub.op("step", { action }, SERVER_GRANT));
      return {
        observations: texts(out.observations),
        reward: out.reward,
        done: out.done,
        truncated: out.truncated
      };
    },
    call: async (tool, args = {}) => {
      const out = value(
        await stub.op("call", { tool, arguments: args }, SERVER_GRANT)
      );
      return { content: contentText(out.content), is_error: out.is_error };
    },
    status: async () => {
      const s = value(await stub.op("status", {}, SERVER_GRANT));
      return {
        episode: s.episode,
        steps: s.steps,
        reward: s.reward,
        return: s.return,
        done: s.done,
        truncated: s.truncated
      };
    }
  };
};

runEpisodeContract("session object", objectDriver);
