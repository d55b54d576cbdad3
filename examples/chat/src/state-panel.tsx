/** @module The session's typed state, live from `useSession`. */
import type { useSession } from "roost-edge/react";
import type { catalog } from "../../catalog/index";
import { type Filter, filterText } from "./format";

type Handle = ReturnType<typeof useSession<typeof catalog>>;

const filtersText = (filters: readonly Filter[]): string =>
  filters.length === 0 ? "none" : filters.map(filterText).join(", ");

export const StatePanel = ({ session }: { session: Handle }) => {
  // Typed from the environment: user_context is a string, last_query the
  // query tool's input or null.
  const state = session.state;
  const query = state?.last_query ?? null;
  return (
    <section className="panel" aria-labelledby="state-title">
      <header className="panel-head">
        <h2 id="state-title">State</h2>
        <span className="pill" data-connection={session.connection}>
          {session.connection}
        </span>
      </header>
      <dl className="state" id="state">
        <dt>user_context</dt>
        <dd data-key="user_context">{state ? state.user_context : "…"}</dd>
        <dt>last_query</dt>
        <dd data-key="last_query">
          {query === null ? (
            <span className="muted">none yet</span>
          ) : (
            <>
              <code>{query.collection}</code>
              {query.text ? ` “${query.text}”` : ""} · filters:{" "}
              {filtersText(query.filters)} · limit {query.limit}
            </>
          )}
        </dd>
        <dt>episode</dt>
        <dd data-key="episode">{session.status?.episode ?? "…"}</dd>
      </dl>
    </section>
  );
};
