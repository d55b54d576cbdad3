/** @module The Aviary layer: Aviary's dataset server (`/start`, `/reset`, `/step`, `/close`), as ldp's client calls it. */

import type { Layer } from "../../http/layer";
import { aviaryRoutes } from "./routes";

export const aviary = (): Layer => ({ name: "aviary", routes: aviaryRoutes });
