/**
 * @module What the tests of roost-edge/react's hook share in a DOM
 * (happy-dom): React's act environment, one root per test unmounted after
 * it, Node's fetch and the ws package's WebSocket for the hook, and a wait
 * that lets React and the socket work.
 */
import { act, type ReactElement } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach } from "vitest";

export { WebSocket } from "ws";

// Node's own fetch: happy-dom's would apply a page origin's CORS rules.
export const nodeFetch = globalThis.fetch;

(
  globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * A root per test for the calling file: `render` mounts an element into a
 * new container of the document (answered), and the root is unmounted
 * after each test.
 */
export const reactRoots = () => {
  let root: Root | undefined;
  afterEach(async () => {
    await act(async () => root?.unmount());
    root = undefined;
  });
  return {
    render: async (element: ReactElement): Promise<HTMLDivElement> => {
      const container = document.createElement("div");
      document.body.append(container);
      await act(async () => {
        root = createRoot(container);
        root.render(element);
      });
      return container;
    }
  };
};

/**
 * Lets React and the socket work until `predicate` holds; after 15 s it
 * fails, saying what it waited for and what `seen` shows then.
 */
export const actUntil = async (
  predicate: () => boolean,
  what: string,
  seen: () => unknown
) => {
  const deadline = Date.now() + 15_000;
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(
        `Timed out waiting for ${what}: ${JSON.stringify(seen())}`
      );
    await act(() => new Promise((r) => setTimeout(r, 10)));
  }
};
