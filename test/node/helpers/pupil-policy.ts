/**
 * @module A policy for the `pupil` fixture (test/fixtures/pupil.ts): it
 * answers task "What is N?" right when N is even and off by far when N is
 * odd, so even tasks always succeed and odd ones never do. What the
 * rollout CLI loads as `policy`.
 */
import { callTool, type Policy } from "roost-edge/client";

export const policy: Policy = (observations, _tools, history) => {
  const asked = [...history, ...observations]
    .map((m) => (typeof m.content === "string" ? m.content : ""))
    .join("\n");
  const n = Number(/What is (\d+)\?/.exec(asked)?.[1] ?? 0);
  return callTool("c1", "answer", { value: n % 2 === 0 ? n : n + 10 });
};
