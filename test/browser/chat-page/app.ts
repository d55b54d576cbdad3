/**
 * @module A minimal page on the AI SDK's real `useChat`, bundled by the
 * browser test: it renders every part of the messages as plain elements
 * the test reads. Session, token, chat id and model come from the URL, so
 * a reload resumes the same chat.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { createElement as h, StrictMode, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const base = params.get("base") ?? "";
const session = params.get("session") ?? "";
const token = params.get("token") ?? "";
const chatId = params.get("chat") ?? "chat";
const model = params.get("model");

type Part = UIMessage["parts"][number] & Record<string, unknown>;

const renderPart = (part: Part, key: number) => {
  switch (part.type) {
    case "text":
      return h("p", { key, className: "text" }, String(part.text));
    case "reasoning":
      return h("p", { key, className: "reasoning" }, String(part.text));
    case "dynamic-tool":
      return h(
        "div",
        {
          key,
          className: "tool",
          "data-tool": String(part.toolName),
          "data-state": String(part.state)
        },
        `${String(part.toolName)}(${JSON.stringify(part.input)}) → ${
          part.state === "output-error"
            ? String(part.errorText)
            : JSON.stringify(part.output ?? null)
        }`
      );
    case "step-start":
      return h("hr", { key, className: "step" });
    default:
      if (part.type.startsWith("data-")) {
        return h(
          "pre",
          { key, className: part.type },
          JSON.stringify(part.data)
        );
      }
      return null;
  }
};

const App = () => {
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: `${base}/v1/sessions/${session}/chat`,
        headers: { authorization: `Bearer ${token}` },
        ...(model ? { body: { model } } : {})
      }),
    []
  );
  const { messages, sendMessage, status, error } = useChat({
    id: chatId,
    transport,
    resume: true
  });
  const [input, setInput] = useState("");
  return h(
    "main",
    null,
    h(
      "form",
      {
        onSubmit: (e: { preventDefault(): void }) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        }
      },
      h("input", {
        id: "prompt",
        value: input,
        onChange: (e: { target: { value: string } }) => setInput(e.target.value)
      }),
      h("button", { id: "send", type: "submit" }, "Send")
    ),
    h("output", { id: "status" }, status),
    error ? h("output", { id: "error" }, error.message) : null,
    ...messages.map((m) =>
      h(
        "section",
        {
          key: m.id,
          className: `message ${m.role}`,
          "data-id": m.id,
          "data-state": String(
            (m.metadata as { state?: string } | undefined)?.state ?? ""
          )
        },
        (m.parts as Part[]).map(renderPart)
      )
    )
  );
};

createRoot(document.getElementById("root")!).render(
  h(StrictMode, null, h(App))
);
