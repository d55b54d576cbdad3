/**
 * Runs a README shell block of curl commands with fetch, as bash, curl and
 * jq would, so the walkthrough a newcomer pastes is the one the tests run.
 * It understands what the walkthrough uses and nothing more: `NAME=value`,
 * `NAME=$(curl …)`, `$(echo "$NAME" | jq -r .field)`, `echo "$NAME"`,
 * `curl -s [-X METHOD] URL [-H header]… [-d body]`, and `# → answer`
 * comments, which say what the command before them prints.
 */

/** A command's printed answer, and the `# →` line that describes it. */
export interface Step {
  command: string;
  status?: number;
  printed: string;
  expected?: string;
}

const jqField = /\$\(echo "\$(\w+)" \| jq -r \.(\w+)\)/g;

/** Words of a command line, with quotes removed and `$NAME` expanded. */
const words = (line: string, vars: Map<string, string>): string[] => {
  const value = (name: string) => {
    const found = vars.get(name);
    if (found === undefined) throw new Error(`$${name} is not set: ${line}`);
    return found;
  };
  const expand = (text: string) =>
    text.replace(/\$\{?(\w+)\}?/g, (_, name: string) => value(name));
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g))
    out.push(m[1] ?? expand(m[2] ?? m[3]!));
  // Adjacent quoted parts ("a"'b') do not occur in the walkthrough.
  return out;
};

/** The block's commands: continuation lines joined, comments kept apart. */
const lines = (block: string): string[] =>
  block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");

/**
 * Every request of the block, in order, against `base` (which replaces the
 * block's `http://127.0.0.1:8787`).
 */
export const runShellBlock = async (
  block: string,
  base: string
): Promise<Step[]> => {
  const vars = new Map<string, string>();
  const steps: Step[] = [];
  const local = "http://127.0.0.1:8787";
  const curl = async (command: string): Promise<Step> => {
    const args = words(command, vars);
    if (args[0] !== "curl") throw new Error(`not a curl command: ${command}`);
    const headers: Record<string, string> = {};
    let method: string | undefined;
    let body: string | undefined;
    let url: string | undefined;
    for (let i = 1; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "-X") method = args[++i];
      else if (arg === "-H") {
        const header = args[++i]!;
        const colon = header.indexOf(":");
        headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
      } else if (arg === "-d") body = args[++i];
      else if (arg.startsWith("-")) continue;
      else url = arg.replace(local, base);
    }
    if (url === undefined) throw new Error(`no URL: ${command}`);
    const res = await fetch(url, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      headers,
      ...(body === undefined ? {} : { body })
    });
    return { command, status: res.status, printed: await res.text() };
  };
  for (const line of lines(block)) {
    if (line.startsWith("#")) {
      const arrow = /^#\s*→\s*(.*)$/.exec(line);
      const last = steps.at(-1);
      if (arrow && last) last.expected = arrow[1];
      continue;
    }
    const subst = line.replace(jqField, (_, name: string, field: string) => {
      const json = JSON.parse(vars.get(name) ?? "null") as Record<
        string,
        unknown
      > | null;
      return String(json?.[field]);
    });
    const captured = /^(\w+)=\$\((curl .*)\)$/.exec(subst);
    const assigned = /^(\w+)=(.*)$/.exec(subst);
    if (captured) {
      const step = await curl(captured[2]!);
      vars.set(captured[1]!, step.printed);
      steps.push({ ...step, printed: "" });
    } else if (assigned)
      vars.set(assigned[1]!, words(assigned[2]!, vars).join(" "));
    else if (subst.startsWith("echo "))
      steps.push({
        command: line,
        printed: words(subst, vars).slice(1).join(" ")
      });
    else steps.push(await curl(subst));
  }
  return steps;
};

/**
 * A `# →` answer as a pattern: `…` stands for what differs run to run (a
 * quoted string holding one, any string; elsewhere, anything).
 */
export const answerPattern = (expected: string, base: string): RegExp => {
  const local = expected.replaceAll("http://127.0.0.1:8787", base);
  const parts = local.split(/("[^"]*…[^"]*")/);
  const source = parts
    .map((part, i) =>
      i % 2 === 1
        ? '"[^"]*"'
        : part
            .split("…")
            .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")
    )
    .join("");
  return new RegExp(`^${source}$`);
};
