/**
 * @module The conversation: useChat on the session's chat endpoint. Each
 * assistant message is one run; its text parts are the tree's messages and
 * answer, its tool parts the calls it made.
 */
import type { UIMessage } from "ai";
import {
  type FormEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useRef,
  useState
} from "react";
import { inputText } from "./format";
import { type Part, resultDomId } from "./parts";

const TOOL_STATE: Record<string, string> = {
  "input-streaming": "starting",
  "input-available": "running",
  "output-available": "done",
  "output-error": "failed"
};

const PartView = ({
  part,
  index,
  messageId
}: {
  part: Part;
  index: number;
  messageId: string;
}) => {
  switch (part.type) {
    case "text":
      return <p className="text">{part.text}</p>;
    case "reasoning":
      return <p className="reasoning">{part.text}</p>;
    case "dynamic-tool":
      return (
        <div
          className="tool"
          data-tool={part.toolName}
          data-state={part.state}
          title={inputText(part.input)}
        >
          <code>{part.toolName}</code>
          <span className="tool-input">{inputText(part.input)}</span>
          <span className="tag" data-state={part.state}>
            {TOOL_STATE[part.state] ?? part.state}
          </span>
        </div>
      );
    case "data-result": {
      const data = part.data as { name?: string; objects?: unknown[] };
      const n = data.objects?.length ?? 0;
      return (
        <p className="result-ref">
          <button
            type="button"
            className="link"
            onClick={() =>
              document
                .getElementById(
                  resultDomId(
                    messageId,
                    (part as { id?: string }).id ?? String(index)
                  )
                )
                ?.scrollIntoView({ behavior: "smooth", block: "nearest" })
            }
          >
            {n} {n === 1 ? "row" : "rows"} of {data.name ?? "results"} → Results
          </button>
        </p>
      );
    }
    default:
      return null;
  }
};

const stateOf = (m: UIMessage): string =>
  String((m.metadata as { state?: string } | undefined)?.state ?? "");

const Message = ({ message }: { message: UIMessage }) => (
  <li
    className={`message ${message.role}`}
    data-id={message.id}
    data-state={stateOf(message)}
  >
    <span className="who">{message.role === "user" ? "You" : "Catalog"}</span>
    <div className="bubble">
      {message.parts.map((part, i) => (
        // Parts only ever append (a reset-step drops the tail): the index is stable.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <PartView key={i} part={part} index={i} messageId={message.id} />
      ))}
    </div>
  </li>
);

const SUGGESTIONS = [
  "Which cat toys are rated 4.5 or higher?",
  "Any dog food?"
];

export interface ChatPanelProps {
  messages: UIMessage[];
  status: string;
  error: Error | undefined;
  send(text: string): void;
  /** A line under the heading: which model answers. */
  note?: ReactNode;
  /**
   * Why this page cannot ask (a read-only link's token): the box, Send and
   * the suggestions are disabled and the reason shown in their place.
   */
  locked?: string;
}

export const ChatPanel = ({
  messages,
  status,
  error,
  send,
  note,
  locked
}: ChatPanelProps) => {
  const [input, setInput] = useState("");
  const list = useRef<HTMLOListElement>(null);
  const busy = status === "submitted" || status === "streaming";
  // Follow the newest part, unless the reader scrolled up to read. The
  // list's own scrolls (where `follow` put it) say nothing about the
  // reader: under load their scroll event lands after more content came,
  // and would read as the reader leaving the bottom.
  const pinned = useRef(true);
  const followedTo = useRef(-1);
  const follow = useCallback(() => {
    const el = list.current;
    if (!el || !pinned.current) return;
    el.scrollTop = el.scrollHeight;
    followedTo.current = el.scrollTop;
  }, []);
  useEffect(follow);
  // A rotated phone, a resized window, or the newest message growing
  // without a render here (a table filling in) keeps it in view.
  const newest = useRef<ResizeObserver | undefined>(undefined);
  useEffect(() => {
    const last = list.current?.lastElementChild;
    if (typeof ResizeObserver === "undefined" || !last) return;
    newest.current ??= new ResizeObserver(follow);
    newest.current.disconnect();
    newest.current.observe(last);
  });
  useEffect(() => {
    addEventListener("resize", follow);
    return () => {
      removeEventListener("resize", follow);
      newest.current?.disconnect();
    };
  }, [follow]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy || locked) return;
    send(text);
    setInput("");
  };
  return (
    <section className="panel chat" aria-labelledby="chat-title">
      <header className="panel-head">
        <h2 id="chat-title">Chat</h2>
        <output id="status" className="pill" data-status={status}>
          {status}
        </output>
      </header>
      {note}
      <ol
        className="messages"
        ref={list}
        aria-live="polite"
        onScroll={(e) => {
          const el = e.currentTarget;
          if (el.scrollTop === followedTo.current) return;
          pinned.current =
            el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {messages.length === 0 ? (
          <li className="welcome">
            <p>
              Ask about the pet shop’s products or customer messages. The
              assistant walks the decision tree, and what it finds appears under
              Results as it goes.
            </p>
            <ul className="suggestions">
              {SUGGESTIONS.map((s) => (
                <li key={s}>
                  {/* Sent as it is clicked: filling the box and waiting for
                      a second click on Send read as a click that did nothing. */}
                  <button
                    type="button"
                    className="link suggestion"
                    disabled={busy || locked !== undefined}
                    onClick={() => send(s)}
                  >
                    {s}
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ) : (
          messages.map((m) => <Message key={m.id} message={m} />)
        )}
      </ol>
      <p className="chat-line" role="status">
        {error ? (
          <span id="error" className="error" role="alert">
            {error.message}
          </span>
        ) : busy ? (
          <span className="working">The assistant is working…</span>
        ) : locked ? (
          <span id="locked" className="locked">
            {locked}
          </span>
        ) : null}
      </p>
      <form className="composer" onSubmit={submit}>
        <label htmlFor="prompt" className="visually-hidden">
          Ask the catalog
        </label>
        <input
          id="prompt"
          name="prompt"
          autoComplete="off"
          placeholder={locked ? "Read-only" : "Ask the catalog…"}
          disabled={locked !== undefined}
          value={input}
          onChange={(e) => setInput(e.target.value)}
        />
        <button
          id="send"
          type="submit"
          disabled={busy || locked !== undefined || input.trim() === ""}
        >
          Send
        </button>
      </form>
    </section>
  );
};
