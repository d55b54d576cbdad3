import { describe, expect, it } from "vitest";
import { readOnlyStore } from "../store/reader";
import { TEXT_RESPONSE } from "../tree/define-tree";
import { memoryStore } from "../tree/fixtures.case";
import type { DecisionRequest, TreeData } from "../tree/types";
import { scriptedModel } from "./scripted-model";

const treeData: TreeData = {
  userPrompt: "find frogs",
  conversationHistory: [],
  atlas: { style: "s", agentDescription: "d", endGoal: "e" },
  environment: readOnlyStore(memoryStore()),
  environmentView: "{}",
  tasksCompleted: [],
  errors: {},
  pass: 1,
  recursionLimit: 5
};

const request = (node = "root"): DecisionRequest => ({
  treeData,
  node,
  instruction: "Choose.",
  options: [],
  unavailable: [],
  feedback: []
});

describe("scriptedModel", () => {
  it("plays an array by decision index and fills missing fields", async () => {
    const model = scriptedModel([
      { tool: "search", reasoning: "Need data." },
      { tool: "query", inputs: { q: "frogs" }, end: true, message: "Looking." }
    ]);
    expect(model.name).toBe("scripted");
    expect(await model.decide(request(), { decisionIndex: 0 })).toEqual({
      tool: "search",
      inputs: {},
      end: false,
      message: "",
      impossible: false,
      reasoning: "Need data."
    });
    // Indexed, not stateful: asking for 1 twice gives the same answer.
    for (let i = 0; i < 2; i++) {
      expect(
        await model.decide(request("search"), { decisionIndex: 1 })
      ).toEqual({
        tool: "query",
        inputs: { q: "frogs" },
        end: true,
        message: "Looking.",
        impossible: false
      });
    }
  });

  it("answers with text_response past the end of the script", async () => {
    const model = scriptedModel([{ tool: "query" }], {
      name: "replay",
      final: "Found 3 frogs."
    });
    expect(model.name).toBe("replay");
    expect(await model.decide(request(), { decisionIndex: 1 })).toEqual({
      tool: TEXT_RESPONSE,
      inputs: { text: "Found 3 frogs." },
      end: true,
      message: "",
      impossible: false
    });
    expect(
      await model.respond({ treeData, reason: "limit" }, { decisionIndex: 2 })
    ).toBe("Found 3 frogs.");
    expect(
      await scriptedModel([]).respond(
        { treeData, reason: "ended" },
        { decisionIndex: 0 }
      )
    ).toBe("Done.");
  });

  it("lets a function decide from the request and build the final text", async () => {
    const model = scriptedModel(
      (req, index) =>
        req.node === "root"
          ? { tool: "search" }
          : { tool: "query", inputs: { page: index } },
      { final: (req) => `${req.reason}: ${req.treeData.userPrompt}` }
    );
    expect((await model.decide(request(), { decisionIndex: 0 })).tool).toBe(
      "search"
    );
    expect(
      (await model.decide(request("search"), { decisionIndex: 3 })).inputs
    ).toEqual({ page: 3 });
    // Keys a script leaves undefined do not reach the tool.
    const loose = scriptedModel([
      { tool: "q", inputs: { a: 1, b: undefined } }
    ]);
    const decided = await loose.decide(request(), { decisionIndex: 0 });
    expect(Object.keys(decided.inputs)).toEqual(["a"]);
    expect(
      await model.respond({ treeData, reason: "limit" }, { decisionIndex: 4 })
    ).toBe("limit: find frogs");
  });

  it("hands out copies, so editing a decision leaves the script intact", async () => {
    const model = scriptedModel([{ tool: "query", inputs: { q: "frogs" } }]);
    const first = await model.decide(request(), { decisionIndex: 0 });
    first.inputs.q = "toads";
    const again = await model.decide(request(), { decisionIndex: 0 });
    expect(again.inputs).toEqual({ q: "frogs" });
  });

  it("stops when the run is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    const model = scriptedModel([{ tool: "query" }]);
    await expect(
      model.decide(request(), {
        decisionIndex: 0,
        signal: controller.signal
      })
    ).rejects.toThrow("cancelled");
  });
});
