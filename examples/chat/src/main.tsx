/** @module Opens (or reuses) a catalog session, reads its tree, and renders the app. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import type { ModelInfo, TreeInfo } from "roost-edge/client";
import { App } from "./app";
import { openSession } from "./session";

const base = location.origin;
const model = new URLSearchParams(location.search).get("model") ?? undefined;

/** The catalog's tree, and the models its runs may name here (the default first). */
const catalogInfo = async (): Promise<{
  tree?: TreeInfo;
  models?: ModelInfo[];
}> => {
  const res = await fetch(`${base}/v1/environments`);
  const body = (await res.json()) as {
    environments: { name: string; tree?: TreeInfo; models?: ModelInfo[] }[];
  };
  return body.environments.find((e) => e.name === "catalog") ?? {};
};

const root = createRoot(document.getElementById("root")!);
try {
  const [session, { tree, models }] = await Promise.all([
    openSession(base),
    catalogInfo()
  ]);
  root.render(
    <StrictMode>
      <App
        base={base}
        session={session}
        tree={tree}
        models={models}
        model={model}
      />
    </StrictMode>
  );
} catch (error) {
  root.render(
    <p className="boot error" role="alert">
      Could not open a catalog session: {(error as Error).message}
    </p>
  );
}
