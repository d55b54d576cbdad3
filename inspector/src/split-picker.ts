/** @module The create form's dataset picker: the default dataset and named splits, a task index capped by a finite split's size. */

import { $, fill, h } from "./dom";
import type { EnvironmentInfo } from "./environments";

interface SplitChoice {
  /** The wire's `split`; "" for the default dataset. */
  value: string;
  label: string;
  size: number | undefined;
}

/** The default dataset (if any), then every named split. */
const splitChoices = (env: EnvironmentInfo | undefined): SplitChoice[] => [
  ...(env?.dataset_size !== undefined || env?.dataset_generated
    ? [{ value: "", label: "dataset", size: env.dataset_size }]
    : []),
  ...(env?.splits ?? []).map((s) => ({
    value: s.name,
    label: s.name,
    size: s.size
  }))
];

const currentSplit = (
  env: EnvironmentInfo | undefined
): SplitChoice | undefined => {
  const value = $<HTMLSelectElement>("#task-split").value;
  return splitChoices(env).find((p) => p.value === value);
};

/** Only an environment with a dataset or splits takes a task index: the picker is hidden otherwise. */
export const renderSplits = (env: EnvironmentInfo | undefined): void => {
  $<HTMLInputElement>("#task-index").value = "";
  const picks = splitChoices(env);
  $("#dataset").hidden = picks.length === 0;
  fill(
    $("#task-split"),
    ...picks.map((p) =>
      h(
        "option",
        { value: p.value },
        p.size === undefined
          ? `${p.label} (generated: any seed)`
          : `${p.label} (${p.size} tasks)`
      )
    )
  );
  onSplit(env);
};

/** A finite split caps the index; a generated one takes any seed. */
export const onSplit = (env: EnvironmentInfo | undefined): void => {
  const index = $<HTMLInputElement>("#task-index");
  const size = currentSplit(env)?.size;
  if (size === undefined) index.removeAttribute("max");
  else index.max = String(Math.max(0, size - 1));
  onTaskIndex(env);
};

/** With a dataset index the dataset gives the task: the form is not used, so nothing in it is required. */
export const onTaskIndex = (env: EnvironmentInfo | undefined): void => {
  const value = $<HTMLInputElement>("#task-index").value;
  const pick = currentSplit(env);
  const where =
    pick === undefined || pick.value === ""
      ? "the dataset"
      : `split ${pick.value}`;
  $("#task-form").hidden = value !== "";
  $("#dataset-hint").textContent =
    value === ""
      ? ""
      : pick?.size === undefined
        ? `Seed ${value} of ${where}; no fields needed.`
        : `Task ${value} of ${where}; no fields needed.`;
};
