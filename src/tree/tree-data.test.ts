import { describe, expect, it } from "vitest";
import {
  addToHistory,
  clearErrors,
  openTasks,
  recordError,
  recordTask,
  renderErrors,
  renderTasksCompleted,
  treeCount,
  updateLastTask
} from "./tree-data";
import type { PromptTasks } from "./types";

describe("addToHistory", () => {
  it("merges turns of the same role and skips empty text", () => {
    let history = addToHistory([], "user", "Find frogs.");
    for (const text of ["Searching.", "Found three.\n", "", "Here they are."])
      history = addToHistory(history, "assistant", text);
    history = addToHistory(history, "user", "Thanks!");
    expect(history).toEqual([
      { role: "user", content: "Find frogs." },
      {
        role: "assistant",
        content: "Searching. Found three.\nHere they are."
      },
      { role: "user", content: "Thanks!" }
    ]);
  });

  it("does not change the history it extends", () => {
    const history = [{ role: "assistant" as const, content: "One." }];
    const next = addToHistory(history, "assistant", "Two.");
    expect(next).toEqual([{ role: "assistant", content: "One. Two." }]);
    expect(history).toEqual([{ role: "assistant", content: "One." }]);
    expect(addToHistory(next, "user", "  ")).toEqual(next);
  });
});

describe("tasks completed", () => {
  it("groups tasks per prompt and starts a block when the prompt changes", () => {
    let tasks: PromptTasks[] = [];
    tasks = recordTask(tasks, "find frogs", {
      task: "search",
      pass: 1,
      kind: "branch",
      reasoning: "Need data."
    });
    tasks = recordTask(tasks, "find frogs", {
      task: "query",
      pass: 1,
      kind: "tool",
      inputs: { q: "frogs" }
    });
    tasks = recordTask(tasks, "and toads?", {
      task: "query",
      pass: 1,
      kind: "tool"
    });
    // Asking the first question again is a new turn, not the old block.
    tasks = recordTask(tasks, "find frogs", {
      task: "text_response",
      pass: 1,
      kind: "text"
    });
    expect(tasks.map((b) => [b.prompt, b.tasks.map((t) => t.task)])).toEqual([
      ["find frogs", ["search", "query"]],
      ["and toads?", ["query"]],
      ["find frogs", ["text_response"]]
    ]);
  });

  it("keeps a block per run: the same prompt asked twice in a row is two", () => {
    const task = { task: "query", pass: 1, kind: "tool" } as const;
    let tasks = openTasks([], "find frogs", "r1");
    tasks = recordTask(tasks, "find frogs", task);
    tasks = openTasks(tasks, "find frogs", "r2");
    // The new run's block is the latest before it records anything.
    expect(tasks.at(-1)).toEqual({
      prompt: "find frogs",
      runId: "r2",
      tasks: []
    });
    tasks = recordTask(tasks, "find frogs", task);
    tasks = updateLastTask(tasks, "find frogs", { output: "3 rows" });
    expect(openTasks(tasks, "find frogs", "r2")).toEqual(tasks);
    expect(tasks.map((b) => [b.runId, b.tasks.map((t) => t.output)])).toEqual([
      ["r1", [undefined]],
      ["r2", ["3 rows"]]
    ]);
  });

  it("adds output or error to the latest task without touching earlier ones", () => {
    const before = recordTask([], "p", {
      task: "query",
      pass: 2,
      kind: "tool"
    });
    const after = updateLastTask(before, "p", {
      output: "3 rows",
      error: undefined
    });
    expect(after[0]!.tasks[0]).toEqual({
      task: "query",
      pass: 2,
      kind: "tool",
      output: "3 rows"
    });
    expect(before[0]!.tasks[0]).not.toHaveProperty("output");
    expect(updateLastTask(after, "other prompt", { error: true })).toEqual(
      after
    );
    expect(updateLastTask([], "p", { error: true })).toEqual([]);
  });

  it("renders tasks for the model, hiding the reasoning of failed ones", () => {
    let tasks: PromptTasks[] = [];
    tasks = recordTask(tasks, "find frogs", {
      task: "search",
      pass: 1,
      kind: "branch",
      reasoning: "Need data."
    });
    tasks = recordTask(tasks, "find frogs", {
      task: "query",
      pass: 1,
      kind: "tool",
      reasoning: "Query for frogs.",
      inputs: { q: "frogs", limit: 3 },
      output: "Invalid arguments for query: limit too small.",
      error: true
    });
    tasks = recordTask(tasks, "find frogs", {
      task: "query",
      pass: 2,
      kind: "tool",
      reasoning: "Retry without a limit.",
      inputs: { q: "frogs" },
      output: "3 rows"
    });
    tasks = recordTask(tasks, "thanks", {
      task: "text_response",
      pass: 1,
      kind: "text",
      inputs: { text: "You're welcome." }
    });
    const text = renderTasksCompleted(tasks);
    expect(text).toContain("<prompt_1>\nPrompt: find frogs\n<task_1>");
    expect(text).toMatch(/Chosen branch: search \(/);
    expect(text).toContain("Reasoning: Need data.");
    const failed = text.slice(
      text.indexOf("<task_2>"),
      text.indexOf("</task_2>")
    );
    expect(failed).toMatch(/^<task_2>\nChosen action: query \(.*\)\n/);
    expect(failed).toContain("(UNSUCCESSFUL)");
    expect(failed).not.toContain("Query for frogs.");
    expect(failed).toContain('Inputs: {"limit":3,"q":"frogs"}');
    expect(failed).toContain(
      "Output: Invalid arguments for query: limit too small."
    );
    const retried = text.slice(
      text.indexOf("<task_3>"),
      text.indexOf("</task_3>")
    );
    expect(retried).toContain("(SUCCESSFUL)");
    expect(retried).toContain("Reasoning: Retry without a limit.");
    expect(retried).toContain('Inputs: {"q":"frogs"}');
    expect(retried).toContain("Output: 3 rows");
    // A branch cannot fail, so it carries no success mark.
    const branch = text.slice(
      text.indexOf("<task_1>"),
      text.indexOf("</task_1>")
    );
    expect(branch).not.toMatch(/SUCCESSFUL/);
    expect(text).toContain(
      "</prompt_1>\n<prompt_2>\nPrompt: thanks\n<task_1>\nChosen action: text_response"
    );
    expect(text.endsWith("</task_1>\n</prompt_2>")).toBe(true);
    expect(renderTasksCompleted([])).toBe("");
  });
});

describe("errors", () => {
  it("records per tool and clears only the tool that succeeded", () => {
    let errors: Record<string, string[]> = {};
    errors = recordError(errors, "query", "Bad filter.");
    errors = recordError(errors, "query", "Bad limit.");
    errors = recordError(errors, "aggregate", "No such field.");
    const snapshot = errors;
    errors = clearErrors(errors, "query");
    expect({ ...errors }).toEqual({ aggregate: ["No such field."] });
    expect(snapshot.query).toEqual(["Bad filter.", "Bad limit."]);
    expect(renderErrors(snapshot)).toBe(
      "Errors from query (oldest first):\n- Bad filter.\n- Bad limit.\n\nErrors from aggregate (oldest first):\n- No such field."
    );
    expect(renderErrors(clearErrors(errors, "aggregate"))).toBe("");
  });

  it("treats __proto__ and constructor as ordinary tool names", () => {
    let errors: Record<string, string[]> = {};
    errors = recordError(errors, "__proto__", "one");
    errors = recordError(errors, "constructor", "two");
    expect(Object.keys(errors)).toEqual(["__proto__", "constructor"]);
    expect(errors.constructor).toEqual(["two"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Survives the JSON round trip tree data takes between passes.
    const restored = JSON.parse(JSON.stringify(errors)) as Record<
      string,
      string[]
    >;
    const cleared = clearErrors(
      recordError(restored, "__proto__", "x"),
      "constructor"
    );
    expect(Object.keys(cleared)).toEqual(["__proto__"]);
    expect(
      Object.getOwnPropertyDescriptor(cleared, "__proto__")?.value
    ).toEqual(["one", "x"]);
  });
});

describe("treeCount", () => {
  it("counts passes and warns at and past the limit", () => {
    expect(treeCount(1, 5)).toBe("1/5");
    expect(treeCount(5, 5)).toMatch(/^5\/5 \(this is the last decision/);
    expect(treeCount(6, 5)).toMatch(/^6\/5 \(the decision limit is reached/);
  });
});
