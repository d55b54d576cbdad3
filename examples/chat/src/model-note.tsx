/**
 * @module Which model answers, from the environment listing's `models`
 * (the deployment's default first) and the page's `?model=`. The catalog's
 * own model is its script (examples/catalog/agent.ts), so when that one
 * answers the page says the answers are canned, and how to get real ones.
 */
import type { ModelInfo } from "roost-edge/client";

export interface ModelNoteProps {
  /** What the listing says runs may name here; undefined when it could not say. */
  models: readonly ModelInfo[] | undefined;
  /** The page's `?model=`, if any. */
  picked: string | undefined;
}

export const ModelNote = ({ models, picked }: ModelNoteProps) => {
  const name = picked ?? models?.[0]?.name;
  if (name === undefined) return null;
  const info = models?.find((m) => m.name === name);
  if (info?.source !== "environment") {
    return (
      <p id="model-note" className="model-note" data-source={info?.source}>
        Model: <code>{name}</code>
      </p>
    );
  }
  const configured = models?.find((m) => m.source === "configured");
  return (
    <p
      id="model-note"
      className="model-note scripted"
      data-source="environment"
    >
      {configured ? (
        <>
          <strong>Scripted model</strong> (picked with{" "}
          <code>?model={name}</code>
          ): answers are canned. Without <code>?model=</code> this page uses{" "}
          <code>{configured.name}</code>.
        </>
      ) : (
        <>
          <strong>Scripted model</strong> (no model configured): answers are
          canned. For a real one, set <code>ROOST_MODEL_BASE_URL</code>,{" "}
          <code>ROOST_MODEL</code> and <code>ROOST_MODEL_API_KEY</code> in{" "}
          <code>.dev.vars</code> and restart <code>npm start</code>.
        </>
      )}
    </p>
  );
};
