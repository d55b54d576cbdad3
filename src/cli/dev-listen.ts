/**
 * @module Where dev listens. Among wrangler's arguments (`npm start --
 * --port 9105`, `roost-edge dev -- --ip 0.0.0.0`), `--port` and `--ip` are
 * dev's own: it gives wrangler both, its port check and next steps need
 * them, and wrangler refuses either twice. Given there, they win over the
 * defaults (PORT, 127.0.0.1).
 */

export interface Listen {
  port: number;
  ip: string;
  /** The arguments left for wrangler. */
  rest: string[];
}

const OWN = ["port", "ip"] as const;

/** The address to listen on and the rest of `args`, or what is wrong with them. */
export const takeListen = (
  args: readonly string[],
  defaults: { port: number; ip: string }
): Listen | string => {
  const given: Partial<Record<(typeof OWN)[number], string>> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = OWN.find((n) => arg === `--${n}` || arg.startsWith(`--${n}=`));
    if (name === undefined) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes("=")
      ? arg.slice(arg.indexOf("=") + 1)
      : args[++i];
    if (value === undefined || value === "" || value.startsWith("-"))
      return `--${name} needs a value: --${name} ${name === "port" ? "8788" : "0.0.0.0"}`;
    given[name] = value;
  }
  const port = given.port === undefined ? defaults.port : Number(given.port);
  if (
    given.port !== undefined &&
    (!/^\d+$/.test(given.port) || port < 1 || port > 65535)
  )
    return `--port must be a port from 1 to 65535, not "${given.port}".`;
  return { port, ip: given.ip ?? defaults.ip, rest };
};
