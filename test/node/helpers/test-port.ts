/**
 * @module The ports of the servers tests start (wrangler dev and its
 * inspector, `npm start`, the fake model and Roost servers): any free port
 * the system offers, or, where only some ports may be opened, a free one
 * from the range ROOST_TEST_PORTS names (`20000-20999`).
 */
import { createServer } from "node:net";
import { freePort } from "../../../scripts/free-port.mjs";

export interface PortRange {
  from: number;
  to: number;
}

const isPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

/** The range a setting names, none when it is unset or empty. */
export const portRange = (
  setting: string | undefined = process.env.ROOST_TEST_PORTS
): PortRange | undefined => {
  const text = setting?.trim() ?? "";
  if (text === "") return undefined;
  const match = /^(\d+)\s*-\s*(\d+)$/.exec(text);
  const [from, to] = [Number(match?.[1]), Number(match?.[2])];
  if (!match || !isPort(from) || !isPort(to) || from > to)
    throw new Error(
      `ROOST_TEST_PORTS=${setting} is not a range of ports: give two ports from 1 to 65535, the lower first (20000-20999), or leave it unset for any free port.`
    );
  return { from, to };
};

/** Whether nothing listens on 127.0.0.1:`port` right now. */
export const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

/**
 * Ports this process handed out: a server takes seconds to listen on its
 * port, and until then the port still looks free.
 */
const handedOut = new Set<number>();

/** Marks `port` as taken by a server this process starts. */
export const claim = (port: number) => {
  handedOut.add(port);
};

/** Whether this process already handed `port` to a server. */
export const claimed = (port: number) => handedOut.has(port);

/**
 * A port for a server a test starts. Within a range, the search starts at
 * a random port, so processes sharing the range (vitest's workers, two
 * runs) rarely probe the same ports at once.
 */
export const testPort = async (
  setting: string | undefined = process.env.ROOST_TEST_PORTS
): Promise<number> => {
  const range = portRange(setting);
  if (!range) {
    const port = await freePort();
    claim(port);
    return port;
  }
  const size = range.to - range.from + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = range.from + ((start + i) % size);
    if (claimed(port) || !(await isFree(port))) continue;
    claim(port);
    return port;
  }
  throw new Error(
    `ROOST_TEST_PORTS=${setting}: every port of the range is taken. Give a wider range, or stop what holds them.`
  );
};

/**
 * The port to `listen` on for a server this process runs itself: 0 (the
 * system picks one as it binds, with no window for another to take it)
 * unless ROOST_TEST_PORTS names a range.
 */
export const listenPort = async (
  setting: string | undefined = process.env.ROOST_TEST_PORTS
): Promise<number> => (portRange(setting) ? testPort(setting) : 0);
