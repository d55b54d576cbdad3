/** @module The page: chat on the left; the tree, Results and state beside it. */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { useEffect, useMemo, useState } from "react";
import type { ModelInfo, TreeInfo } from "roost-edge/client";
import { type Scope, useSession } from "roost-edge/react";
import type { catalog } from "../../catalog/index";
import { ChatPanel } from "./chat-panel";
import { ModelNote } from "./model-note";
import { positionOf, resultsOf } from "./parts";
import { ResultsPanel } from "./results-panel";
import { chatIdOf, loadMessages, saveMessages } from "./saved-messages";
import { type Credentials, pageUrl } from "./session";
import { StatePanel } from "./state-panel";
import { type LiveNode, TreePanel } from "./tree-panel";

export interface AppProps {
  base: string;
  session: Credentials;
  tree: TreeInfo | undefined;
  /** The models the catalog's runs may name here, the default first. */
  models: ModelInfo[] | undefined;
  /** A model other than the environment's own (`?model=` in the page's URL). */
  model: string | undefined;
}

/** What a link's token may do here, beside the session id. */
const ACCESS_LABELS: Record<Scope, string> = {
  observe: "read-only link",
  grade: "read-only link",
  act: "chat link: no fork",
  control: "",
  model: "model token: it cannot open a chat"
};

const ForkButton = ({ fork }: { fork(): Promise<Credentials> }) => {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  return (
    <span className="fork">
      <button
        id="fork"
        type="button"
        className="secondary"
        disabled={busy}
        title="Copy this session as it stands and open the copy in a new tab"
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            const copy = await fork();
            window.open(pageUrl(copy), "_blank");
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Forking…" : "Fork this session"}
      </button>
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
};

/**
 * The tree beside the newest `tree.node` event. Its own useSession (the
 * same socket as the page's) reads `events`, so an event re-renders only
 * this panel, not the chat.
 */
const LiveTree = ({
  base,
  session,
  tree,
  position
}: {
  base: string;
  session: Credentials;
  tree: TreeInfo | undefined;
  position: ReturnType<typeof positionOf>;
}) => {
  const { events } = useSession({
    baseUrl: base,
    sessionId: session.sessionId,
    token: session.token,
    // The chat column is useChat's; the transcript need not be read here.
    transcript: false
  });
  const live = useMemo((): LiveNode | undefined => {
    const event = events.findLast((e) => e.type === "tree.node");
    return event?.type === "tree.node"
      ? {
          runId: event.run_id,
          seq: event.seq,
          pass: event.payload.pass,
          node: event.payload.node
        }
      : undefined;
  }, [events]);
  return <TreePanel tree={tree} position={position} live={live} />;
};

export const App = ({ base, session, tree, models, model }: AppProps) => {
  const live = useSession<typeof catalog>({
    baseUrl: base,
    sessionId: session.sessionId,
    token: session.token,
    // The chat column is useChat's; the transcript need not be read here.
    transcript: false
  });
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: `${base}/v1/sessions/${session.sessionId}/chat`,
        headers: { authorization: `Bearer ${session.token}` },
        ...(model ? { body: { model } } : {})
      }),
    [base, session, model]
  );
  const chatId = chatIdOf(session.sessionId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once, on mount
  const saved = useMemo(() => loadMessages(chatId), []);
  const { messages, sendMessage, status, error } = useChat({
    // Stable per session, so a reload asks to resume this chat's run.
    id: chatId,
    messages: saved,
    transport,
    resume: true
  });
  useEffect(() => saveMessages(chatId, messages), [chatId, messages]);
  const results = useMemo(() => resultsOf(messages), [messages]);
  const position = useMemo(() => positionOf(messages), [messages]);
  return (
    <div className="app">
      <header className="topbar">
        <h1>
          <span className="brand">Roost</span> Catalog chat
        </h1>
        <p className="session-id" title={session.sessionId}>
          session <code id="session-id">{session.sessionId.slice(0, 12)}</code>
        </p>
        {/* A link's act or observe token cannot fork: not offered. */}
        {live.can("fork") ? (
          <ForkButton
            fork={async () => {
              const forked = await live.fork(1);
              const copy = forked.sessions[0]!;
              // The copy has this conversation's history; its tab shows it
              // too (window.open copies this tab's sessionStorage).
              saveMessages(chatIdOf(copy.session_id), messages);
              return { sessionId: copy.session_id, token: copy.token };
            }}
          />
        ) : null}
        {live.scope === "control" ? null : (
          <span id="access" className="access" data-scope={live.scope}>
            {ACCESS_LABELS[live.scope]}
          </span>
        )}
      </header>
      <main className="layout">
        <ChatPanel
          messages={messages}
          status={status}
          error={error}
          send={(text) => void sendMessage({ text })}
          note={<ModelNote models={models} picked={model} />}
          {...(live.can("chat")
            ? {}
            : {
                locked:
                  "Read-only link: this token watches the session; asking needs an act token."
              })}
        />
        <div className="side">
          <LiveTree
            base={base}
            session={session}
            tree={tree}
            position={position}
          />
          <StatePanel session={live} />
          <ResultsPanel results={results} />
        </div>
      </main>
    </div>
  );
};
