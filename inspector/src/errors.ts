/** @module API and input errors shown inline, and the guard every button goes through. */

import { ApiError } from "./api";
import { $ } from "./dom";

export const showError = (error: unknown): void => {
  const el = $("#error");
  el.hidden = false;
  el.textContent =
    error instanceof ApiError
      ? `${error.status} ${error.code}: ${error.message}`
      : String(error instanceof Error ? error.message : error);
};

export const clearError = (): void => {
  $("#error").hidden = true;
};

/** Runs an action from a button, showing any failure inline. */
export const guarded =
  (fn: () => Promise<void>) =>
  async (event?: Event): Promise<void> => {
    event?.preventDefault();
    clearError();
    try {
      await fn();
    } catch (error) {
      showError(error);
    }
  };
