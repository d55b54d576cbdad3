/**
 * @module Transcript messages drawn for reading: an assistant turn's tool
 * calls as the tool's name over a list of its arguments, and a tool's
 * answer linked to the call it answers. Every value goes in as text.
 */

import { h, short } from "./dom";

interface Message {
  role?: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  name?: unknown;
  is_error?: unknown;
}

interface Call {
  id: string;
  name: string;
  /** Parsed arguments, or the model's string when it is not a JSON object. */
  args: Record<string, unknown> | string;
}

/** Text of message content: a string, or parts (images as a placeholder). */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : short(content);
  return content
    .map((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" ? String(part.text) : `[${String(part?.type)}]`
    )
    .join(" ");
};

const parseArgs = (args: unknown): Call["args"] => {
  if (typeof args !== "string") {
    return args !== null && typeof args === "object" && !Array.isArray(args)
      ? (args as Record<string, unknown>)
      : {};
  }
  try {
    const parsed: unknown = JSON.parse(args === "" ? "{}" : args);
    return parsed !== null &&
      typeof parsed === "object" &&
      !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : args;
  } catch {
    return args;
  }
};

const callsOf = (calls: unknown): Call[] =>
  Array.isArray(calls)
    ? calls.map((call) => {
        const c = call as {
          id?: unknown;
          function?: { name?: unknown; arguments?: unknown };
        };
        return {
          id: String(c?.id ?? ""),
          name: String(c?.function?.name ?? "?"),
          args: parseArgs(c?.function?.arguments)
        };
      })
    : [];

/** A string as itself; anything else as compact JSON. */
const valueText = (value: unknown, max: number): string =>
  short(typeof value === "string" ? value : JSON.stringify(value), max);

const argumentList = (args: Call["args"]): HTMLElement => {
  if (typeof args === "string") {
    return h(
      "div",
      { class: "args raw" },
      h("code", {}, short(args, 300)),
      h("small", { class: "hint" }, "arguments that are not a JSON object")
    );
  }
  const keys = Object.keys(args);
  if (keys.length === 0)
    return h("small", { class: "no-args" }, "no arguments");
  return h(
    "dl",
    { class: "args" },
    ...keys.flatMap((key) => {
      const value = args[key];
      return [
        h("dt", {}, key),
        h(
          "dd",
          {
            class: typeof value === "string" ? "str" : "json",
            title: valueText(value, 2000)
          },
          valueText(value, 200)
        )
      ];
    })
  );
};

/** The anchor id of a message's call: unique on the page, unlike call ids. */
const anchorOf = (index: number, i: number): string => `call-${index}-${i}`;

/** The newest call shown before message `index` with this id. */
const findCall = (
  list: Element,
  id: string,
  index: number
): HTMLElement | undefined => {
  let found: HTMLElement | undefined;
  for (const el of list.querySelectorAll<HTMLElement>(".tool-call")) {
    if (el.dataset.callId === id && Number(el.dataset.message) < index)
      found = el;
  }
  return found;
};

const goTo = (target: HTMLElement) => (event: Event) => {
  event.preventDefault();
  target.scrollIntoView({ block: "nearest" });
  target.classList.remove("flash");
  // A reflow between removing and adding replays the highlight.
  void target.offsetWidth;
  target.classList.add("flash");
};

/** Characters of a message's text drawn before "show all". */
export const PREVIEW_CHARS = 300;

/**
 * A text cut to `PREVIEW_CHARS`, and, when it was cut, the button that
 * reads it whole (the transcript handles its clicks).
 */
const textPreview = (text: string): (Node | string)[] => {
  const preview = h("span", { class: "content" }, short(text, PREVIEW_CHARS));
  if (text.length <= PREVIEW_CHARS) return [preview];
  const label = `show all ${text.length.toLocaleString("en")} characters`;
  return [
    preview,
    " ",
    h(
      "button",
      { type: "button", class: "link show-all", "data-label": label },
      label
    )
  ];
};

/** What a transcript row shows after the role: text, calls, or a tool's answer. */
const messageBody = (
  message: unknown,
  index: number,
  list: Element
): (Node | string)[] => {
  const m = (message ?? {}) as Message;
  const text = contentText(m.content);
  const body: (Node | string)[] = [];
  if (m.role === "tool") {
    const id = String(m.tool_call_id ?? "");
    const call = findCall(list, id, index);
    body.push(
      h("span", { class: "call-name" }, String(m.name ?? "?")),
      " ",
      call
        ? h(
            "a",
            {
              class: "call-id",
              href: `#${call.id}`,
              title: "The call this answers",
              onclick: goTo(call)
            },
            `↩ ${id}`
          )
        : h("span", { class: "call-id" }, `↩ ${id}`),
      m.is_error === true ? h("span", { class: "error-tag" }, "error") : "",
      " "
    );
  }
  if (text !== "") body.push(...textPreview(text));
  callsOf(m.tool_calls).forEach((call, i) => {
    body.push(
      h(
        "div",
        {
          class: "tool-call",
          id: anchorOf(index, i),
          "data-call-id": call.id,
          "data-message": index
        },
        h("span", { class: "call-name" }, call.name),
        " ",
        h("span", { class: "call-id" }, call.id),
        argumentList(call.args)
      )
    );
  });
  return body;
};

/** A transcript row: the role, then the message drawn for reading. */
export const messageRow = (
  message: unknown,
  index: number,
  list: Element
): HTMLLIElement => {
  const { role, agent } = (message ?? {}) as {
    role?: unknown;
    agent?: unknown;
  };
  const name = typeof role === "string" ? role : "?";
  // A multi-agent transcript's message is one agent's view, or everyone's.
  const own = typeof agent === "string" ? agent : undefined;
  return h(
    "li",
    {
      value: index,
      "data-index": index,
      "data-role": typeof role === "string" ? role : undefined,
      "data-agent": own
    },
    h("strong", {}, own === undefined ? name : `${name} · ${own}`),
    " ",
    ...messageBody(message, index, list)
  );
};

/** A message on one line, for the event timeline: `assistant → incr(n=1)`. */
export const messageLine = (message: unknown): string => {
  const m = (message ?? {}) as Message;
  const calls = callsOf(m.tool_calls).map((c) => {
    const args =
      typeof c.args === "string"
        ? c.args
        : Object.entries(c.args)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(", ");
    return `→ ${c.name}(${args})`;
  });
  const head =
    m.role === "tool"
      ? `tool ${String(m.name ?? "?")} ↩ ${String(m.tool_call_id ?? "")}${m.is_error === true ? " error" : ""}:`
      : String(m.role ?? "?");
  return short(
    [head, contentText(m.content), ...calls].filter(Boolean).join(" "),
    200
  );
};
