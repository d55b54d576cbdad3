/**
 * @module The runs' Results as they arrive: a `table` payload as a table of
 * its mapping's columns, a `document` payload as a list of documents, any
 * other as a table of its objects' fields.
 */
import { useEffect, useRef } from "react";
import { mapObjects, mappedFields } from "roost-edge/client";
import { type Filter, filterText } from "./format";
import type { ResultData, ResultEntry } from "./parts";
import { revealWhileSettling } from "./reveal";

const cell = (value: unknown): string =>
  value === null || value === undefined
    ? "–"
    : typeof value === "object"
      ? JSON.stringify(value)
      : String(value);

const columnsOf = (data: ResultData, rows: Record<string, unknown>[]) =>
  data.mapping
    ? mappedFields(data.mapping)
    : // Keys like _REF_ID identify a row for the runtime, not the reader.
      [...new Set(rows.flatMap((row) => Object.keys(row)))].filter(
        (key) => !key.startsWith("_")
      );

/** Decimals per column: as many as its most precise number, so prices line up (39.00 under 24.99). */
const decimalsOf = (rows: Record<string, unknown>[], column: string) =>
  Math.max(
    0,
    ...rows.map((row) => {
      const v = row[column];
      return typeof v === "number" ? (String(v).split(".")[1]?.length ?? 0) : 0;
    })
  );

const Table = ({ data }: { data: ResultData }) => {
  const rows = mapObjects(data.objects, data.mapping);
  const columns = columnsOf(data, rows);
  const decimals = new Map(columns.map((c) => [c, decimalsOf(rows, c)]));
  return (
    <div className="table-wrap">
      <table className="result-table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c}
                scope="col"
                className={
                  rows.some((r) => typeof r[c] === "number") ? "num" : undefined
                }
              >
                {c.replaceAll("_", " ")}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            // Rows of a Result never move: their index is their identity.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <tr key={i}>
              {columns.map((c) => (
                <td
                  key={c}
                  className={typeof row[c] === "number" ? "num" : undefined}
                >
                  {typeof row[c] === "number"
                    ? (row[c] as number).toFixed(decimals.get(c))
                    : cell(row[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

const Documents = ({ data }: { data: ResultData }) => (
  <ul className="documents">
    {mapObjects(data.objects, data.mapping).map((doc, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: a Result's objects never move
      <li key={i} className="document">
        <p className="document-head">
          <strong>{cell(doc.title)}</strong>
          {doc.author ? (
            <span className="muted"> · {cell(doc.author)}</span>
          ) : null}
        </p>
        <p>{cell(doc.content)}</p>
      </li>
    ))}
  </ul>
);

const describe = (data: ResultData): string => {
  const meta = data.metadata ?? {};
  if (typeof meta.group_by === "string")
    return `${String(meta.metric ?? "count")} by ${meta.group_by}`;
  const filters = Array.isArray(meta.filters) ? (meta.filters as Filter[]) : [];
  const words = typeof meta.query === "string" ? [`“${meta.query}”`] : [];
  const shown = filters.map(filterText);
  return [...words, ...shown].join(", ") || "everything";
};

export const ResultCard = ({ entry }: { entry: ResultEntry }) => {
  const { data } = entry;
  const count = data.objects.length;
  return (
    <article
      id={entry.domId}
      className="result"
      data-tool={data.tool}
      data-payload-type={data.payload_type ?? "generic"}
    >
      <header className="result-head">
        <h3>
          <code>{data.tool}</code> {data.name}
        </h3>
        <span className="muted">
          {describe(data)} · {count} {count === 1 ? "row" : "rows"}
        </span>
      </header>
      {data.payload_type === "document" ? (
        <Documents data={data} />
      ) : (
        <Table data={data} />
      )}
    </article>
  );
};

/**
 * Shows each Result that arrives, in the side column that scrolls: the
 * tree and the state above it would otherwise keep a new table below the
 * fold. Those already there when the page opens (a reload) stay put.
 */
const useRevealNewest = (results: readonly ResultEntry[]) => {
  const newest = results.at(-1);
  const seen = useRef(newest?.key);
  useEffect(() => {
    if (newest === undefined || newest.key === seen.current) return;
    seen.current = newest.key;
    const card = document.getElementById(newest.domId);
    return card ? revealWhileSettling(card) : undefined;
  }, [newest]);
};

export const ResultsPanel = ({
  results
}: {
  results: readonly ResultEntry[];
}) => {
  useRevealNewest(results);
  return (
    <section className="panel results-panel" aria-labelledby="results-title">
      <header className="panel-head">
        <h2 id="results-title">Results</h2>
        <span className="pill" id="results-count">
          {results.length}
        </span>
      </header>
      {results.length === 0 ? (
        <p className="muted empty">
          Tables of what the tools find appear here as the run goes.
        </p>
      ) : (
        <div className="results" aria-live="polite">
          {results.map((entry) => (
            <ResultCard key={entry.key} entry={entry} />
          ))}
        </div>
      )}
    </section>
  );
};
