/**
 * @module What the session's token lets this page do: the controls its
 * scope cannot use are disabled, with a note saying why, so a read-only
 * link never offers a button that answers 403. The server still decides.
 */

import {
  type SessionAction,
  scopeCan,
  scopeOfCredential
} from "../../src/protocol/credential-scope";
import type { Scope } from "../../src/protocol/scopes";
import { $ } from "./dom";

/** Each control that changes the session, and the action it takes. */
const CONTROLS: [selector: string, action: SessionAction][] = [
  ["#reset", "reset"],
  ["#fork", "fork"],
  ["#step", "step"],
  ["#call", "call"],
  ["#send-raw", "step"],
  ["#share", "mintToken"],
  ["#share-ttl", "mintToken"]
];

const NOTES: Record<Scope, string> = {
  observe:
    "Read-only link: this token (observe) watches the session live; it cannot step, reset, fork or share it.",
  grade:
    "Read-only link: this token (grade) watches the session; it cannot step, reset, fork or share it.",
  act: "Act link: this token (act) can step and call tools; resetting, forking and sharing need the session's own token.",
  control: "",
  model:
    "A model token calls the session's model gateway and nothing else: the inspector cannot show the session with it."
};

/** Enables the controls `token` may use, disables the rest; answers its scope. */
export const applyAccess = (token: string): Scope => {
  const scope = scopeOfCredential(token);
  for (const [selector, action] of CONTROLS) {
    const control = $<HTMLButtonElement | HTMLSelectElement>(selector);
    const allowed = scopeCan(scope, action);
    control.disabled = !allowed;
    // The control's own title (what it does) comes back once allowed.
    control.dataset.title ??= control.title;
    control.title = allowed
      ? control.dataset.title
      : `Not with this token: it holds ${scope}, ${action} needs more`;
  }
  const note = $("#access-note");
  note.textContent = NOTES[scope];
  note.hidden = NOTES[scope] === "";
  $("#share-box").hidden = !scopeCan(scope, "mintToken");
  return scope;
};
