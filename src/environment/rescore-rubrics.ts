/** @module The rubrics a session's past episodes may be scored with again, by name: the environment's registry. */

import { RoostError } from "../errors";
import { NAME_RE } from "../names";
import {
  defineEpisodeRubric,
  type EpisodeRubric,
  type EpisodeRubricOptions
} from "../rewards/episode";
import type { Rubric } from "../rewards/types";
import { defineRubric, type WeightedSumOptions } from "../rewards/weighted-sum";
import type { TypedDefine } from "./define-environment";

/** A registered rubric: one scored each step, or one scored once per episode. */
export type RegisteredRubric = Rubric<never> | EpisodeRubric<never>;

/**
 * The names the environment's own `rubric` and `episodeRubric` are
 * re-applied under: the names of the fields that declare them, so a
 * client asks for what the definition says.
 */
export const OWN_RUBRICS = ["rubric", "episodeRubric"] as const;

/**
 * What `defineEnvironment({ rubrics })` takes: rubrics by name, or a
 * function handed `rubric` (`defineRubric`) and `episodeRubric`
 * (`defineEpisodeRubric`) typed with the environment's state and task.
 */
export type RubricRegistry<StepArgs, EpisodeArgs> =
  | Record<string, Rubric<StepArgs> | EpisodeRubric<EpisodeArgs>>
  | ((define: {
      rubric: TypedDefine<StepArgs, WeightedSumOptions, Rubric<StepArgs>>;
      episodeRubric: TypedDefine<
        EpisodeArgs,
        EpisodeRubricOptions,
        EpisodeRubric<EpisodeArgs>
      >;
    }) => Record<string, Rubric<StepArgs> | EpisodeRubric<EpisodeArgs>>);

const isRegistered = (value: unknown): value is RegisteredRubric =>
  typeof value === "object" &&
  value !== null &&
  ((value as { kind?: unknown }).kind === "rubric" ||
    (value as { kind?: unknown }).kind === "episode-rubric");

/**
 * The registry as the runtime reads it: the environment's own rubrics
 * first, under OWN_RUBRICS' names, then the registered ones in declared
 * order. Undefined when the environment registers none (`rubrics` left
 * out): its sessions record nothing for re-scoring and pay nothing.
 */
export const resolveRubrics = (
  environment: string,
  own: { rubric?: RegisteredRubric; episodeRubric?: RegisteredRubric },
  given: RubricRegistry<never, never> | undefined
): ReadonlyMap<string, RegisteredRubric> | undefined => {
  if (given === undefined) return undefined;
  const declared: Record<string, unknown> =
    typeof given === "function"
      ? given({
          rubric: defineRubric as never,
          episodeRubric: defineEpisodeRubric as never
        })
      : given;
  const rubrics = new Map<string, RegisteredRubric>();
  for (const name of OWN_RUBRICS) {
    const rubric = own[name];
    if (rubric !== undefined) rubrics.set(name, rubric);
  }
  for (const [name, rubric] of Object.entries(declared)) {
    if (!NAME_RE.test(name)) {
      throw new RoostError(
        "invalid_name",
        `Rubric name "${name}" in ${environment} must match ${NAME_RE}.`
      );
    }
    if ((OWN_RUBRICS as readonly string[]).includes(name)) {
      throw new RoostError(
        "invalid_request",
        `Rubric name "${name}" in ${environment} is taken by the environment's own ${name}, which is re-applied under it.`
      );
    }
    if (!isRegistered(rubric)) {
      throw new RoostError(
        "invalid_request",
        `Rubric "${name}" in ${environment} must be made with defineRubric, weightedSum, gate, sequence or defineEpisodeRubric.`
      );
    }
    rubrics.set(name, rubric);
  }
  return rubrics;
};

/** Names a message lists before it counts the rest; `details` lists them all. */
const NAMES_IN_MESSAGE = 20;

/**
 * The registered rubric `name`; a 404 naming those there are (in
 * `details.rubrics`) when it is not one. A client names a rubric, never
 * sends one: the code that scores is always the deployment's.
 */
export const rubricNamed = (
  environment: string,
  rubrics: ReadonlyMap<string, RegisteredRubric> | undefined,
  name: string
): RegisteredRubric => {
  const rubric = rubrics?.get(name);
  if (rubric !== undefined) return rubric;
  const known = [...(rubrics?.keys() ?? [])];
  const listed = known.slice(0, NAMES_IN_MESSAGE).join(", ");
  throw new RoostError(
    "not_found",
    rubrics === undefined
      ? `Environment ${environment} registers no rubrics for re-scoring (defineEnvironment({ rubrics })).`
      : `Environment ${environment} has no rubric named "${name}". It has: ${listed || "none"}${known.length > NAMES_IN_MESSAGE ? ` and ${known.length - NAMES_IN_MESSAGE} more` : ""}.`,
    { rubric: name, rubrics: known }
  );
};
