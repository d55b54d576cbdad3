import { describe, expect, it } from "vitest";
import {
  type EnvironmentsResponse,
  EnvironmentsResponseSchema,
  EventFrameSchema
} from "../../src/protocol";
import { call, createResetSession, json, send } from "./helpers";
import { hasType, openSocket } from "./ws-helpers";

// The tree as a frontend reads it: drawn from the environment listing, and
// followed through a run by its tree.node and tree.decision frames.

const listing = async () => {
  const body = await json<EnvironmentsResponse>(await call("/v1/environments"));
  // What the OpenAPI document promises, tree included.
  expect(EnvironmentsResponseSchema().safeParse(body).success).toBe(true);
  return body.environments;
};

describe("the tree as data", () => {
  it("lists an environment's tree: nodes, tools with follow-ups, text_response and the limit", async () => {
    const environments = await listing();
    const orchard = environments.find((e) => e.name === "orchard");
    expect(orchard?.tree).toEqual({
      nodes: [
        {
          id: "root",
          kind: "root",
          description: "",
          instruction: expect.any(String),
          tools: [
            {
              name: "taste",
              description: "Tastes the basket; may end the run.",
              end: true
            }
          ],
          branches: ["trees"]
        },
        {
          id: "trees",
          kind: "branch",
          description: "Pick fruit from the trees.",
          instruction: "Pick the fruit asked for.",
          tools: [
            {
              name: "pick",
              description: "Picks a fruit.",
              end: false,
              follow_up_node: "trees.pick"
            }
          ],
          branches: []
        },
        {
          id: "trees.pick",
          kind: "follow_ups",
          description: "",
          instruction: expect.stringContaining("pick"),
          tools: [
            { name: "sort", description: "Sorts what was picked.", end: false }
          ],
          branches: [],
          after: { node: "trees", tool: "pick" }
        }
      ],
      text_response: true,
      recursion_limit: 4
    });
    const forest = environments.find((e) => e.name === "forest");
    expect(forest?.tree?.nodes.map((n) => [n.id, n.branches])).toEqual([
      ["root", ["grove", "clearing"]],
      ["grove", []],
      ["clearing", []]
    ]);
    expect(forest?.tree?.recursion_limit).toBe(3);
    // An environment without a tree lists none.
    const counter = environments.find((e) => e.name === "counter");
    expect(counter).not.toHaveProperty("tree");
  });

  it("streams tree.node as a run arrives at each node, before the decision there", async () => {
    const s = await createResetSession({ environment: "orchard" });
    const sock = await openSocket(s.session_id, s.token);
    const res = await s.call("/runs", send("POST", { prompt: "apples" }));
    const { run_id } = await json<{ run_id: string }>(res);
    const frames = await sock.until(hasType("tree.completed"));
    sock.ws.close();
    const walk = frames
      .filter((f) => f.type === "tree.node" || f.type === "tree.decision")
      .map((f) => {
        const p = f.payload as { pass: number; node: string; option?: string };
        return f.type === "tree.node"
          ? `${p.pass} at ${p.node}`
          : `${p.pass} ${p.node} -> ${p.option}`;
      });
    expect(walk).toEqual([
      "1 at root",
      "1 root -> trees",
      "1 at trees",
      "1 trees -> pick",
      "1 at trees.pick",
      "1 trees.pick -> sort",
      "2 at root",
      "2 root -> text_response"
    ]);
    for (const frame of frames.filter((f) => f.type === "tree.node")) {
      expect(frame.run_id).toBe(run_id);
      // The schema the TypeScript client parses every frame with.
      expect(EventFrameSchema().safeParse(frame).success).toBe(true);
    }
  });
});
