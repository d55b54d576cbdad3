/** @module Opens (or reuses) a catalog session, reads its tree, and renders the app. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import type { TreeInfo } from "roost-edge/client";
import { App } from "./app";
import { openSession } from "./session";

const base = location.origin;
const model = new URLSearchParams(location.search).get("model") ?? undefined;

const catalogTree = async (): Promise<TreeInfo | undefined> => {
  const res = await fetch(`${base}/v1/environments`);
  const body = (await res.json()) as {
    environments: { name: string; tree?: TreeInfo }[];
  };
  return body.environments.find((e) => e.name === "catalog")?.tree;
};

const root = createRoot(document.getElementById("root")!);
try {
  const [session, tree] = await Promise.all([openSession(base), catalogTree()]);
  root.render(
    <StrictMode>
      <App base={base} session={session} tree={tree} model={model} />
    </StrictMode>
  );
} catch (error) {
  root.render(
    <p className="boot error" role="alert">
      Could not open a catalog session: {(error as Error).message}
    </p>
  );
}
