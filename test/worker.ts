/** @module The worker the workerd tests run: the bundled examples plus test fixtures. */

import { calculator } from "../examples/calculator/index";
import { catalog } from "../examples/catalog/index";
import { counter } from "../examples/counter/index";
import { maze } from "../examples/maze/index";
import { story } from "../examples/story/index";
import { support } from "../examples/support/index";
import { tictactoe, tictactoeBot } from "../examples/tictactoe/index";
import { tally } from "../src/environment/fixtures.case";
import { allLayers } from "../src/layers";
import { createRoost } from "../src/roost";
import { branchy } from "./fixtures/branchy";
import { brittle, brittleStep } from "./fixtures/brittle";
import { coder } from "./fixtures/code";
import { duet } from "./fixtures/duet";
import {
  bulk,
  closer,
  forest,
  lab,
  orchard,
  picky,
  quiz,
  toolbox,
  wide
} from "./fixtures/environments";
import { graded } from "./fixtures/graded";
import { hello } from "./fixtures/hello-layer";
import { graderModel, judged } from "./fixtures/judged";
import { absentee, pupil, truant, tutee } from "./fixtures/pupil";
import { regraded } from "./fixtures/regraded";
import { scribe } from "./fixtures/scribe";
import { secrets } from "./fixtures/secrets";

const roost = createRoost({
  environments: [
    counter,
    story,
    calculator,
    catalog,
    maze,
    tictactoe,
    tictactoeBot,
    support,
    duet,
    secrets,
    lab,
    bulk,
    forest,
    picky,
    closer,
    orchard,
    wide,
    toolbox,
    quiz,
    tally,
    graded,
    branchy,
    regraded,
    coder,
    pupil,
    truant,
    tutee,
    absentee,
    scribe,
    brittle,
    brittleStep
  ],
  layers: allLayers(),
  // Small, so the slow-reader test needs few events.
  socketBacklog: 30,
  // Off except in the test about it, which turns it on inside one object.
  rateLimit: false
});

export const Session = roost.Session;
export { OAuthLedger, TaskStats } from "../src/layers";
export default { fetch: roost.fetch };

// A second deployment, bound as JUDGED: one configured model, the scripted
// grader its judges ask. Apart, so the main one keeps no configured model
// and its tree runs still default to each environment's own.
export const JudgedSession = createRoost({
  environments: [judged, support],
  models: { grader: () => graderModel },
  layers: allLayers(),
  rateLimit: false
}).Session;

// A third, bound as CORE: the session core alone, no layer (layers.test.ts).
export const CoreSession = createRoost({
  environments: [counter, regraded],
  rateLimit: false
}).Session;

// A fourth, bound as HELLO: the core and a layer written in a test
// (test/fixtures/hello-layer.ts), as docs/16-layers.md says.
export const HelloSession = createRoost({
  environments: [counter],
  layers: [hello()],
  rateLimit: false
}).Session;
