/** @module V8 CPU profiles (the DevTools protocol's Profiler.stop) summed into tables: self time by function and by source module, total time by function. */

export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample. */
  timeDeltas: number[];
}

/** The module of each line of an unminified bundle, from esbuild's `// path` comments. */
export const moduleOfLine = (source: string): ((line: number) => string) => {
  const starts: [number, string][] = [];
  source.split("\n").forEach((text, line) => {
    const m = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(text);
    if (m)
      starts.push([line, m[1]!.replace(/^.*?(node_modules\/|src\/)/, "$1")]);
  });
  return (line) => {
    let name = "(bundle)";
    for (const [start, path] of starts) {
      if (start > line) break;
      name = path;
    }
    return name;
  };
};

/** Self time per key, as shares of the non-idle samples, largest first. */
const table = (totals: Map<string, number>, busy: number, top: number) =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, n]) => `${((100 * n) / busy).toFixed(1).padStart(5)} %  ${key}`)
    .join("\n");

export interface Summary {
  /** Non-idle samples. */
  busy: number;
  /** Wall milliseconds of idle samples. */
  idleMs: number;
  /** The three tables, as text. */
  text: string;
}

/**
 * Sums profiles by their busy samples. Self time: the samples whose
 * innermost frame is the function. Total time: the samples with the
 * function anywhere on the stack. `where` names a frame's module.
 */
export const summarise = (
  profiles: readonly Profile[],
  where: (node: ProfileNode) => string,
  top: number
): Summary => {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byModule = new Map<string, number>();
  const add = (totals: Map<string, number>, key: string) =>
    totals.set(key, (totals.get(key) ?? 0) + 1);
  let busy = 0;
  let idleMs = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes)
      for (const child of node.children ?? []) parent.set(child, node.id);
    const nameOf = (node: ProfileNode): [string, string] => {
      const f = node.callFrame;
      const module = where(node);
      const line = f.url ? ` (bundle line ${f.lineNumber + 1})` : "";
      return [`${f.functionName || "(anonymous)"}  ${module}${line}`, module];
    };
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)!;
      if (node.callFrame.functionName === "(idle)") {
        idleMs += (profile.timeDeltas[i + 1] ?? 0) / 1000;
        return;
      }
      busy++;
      const [fn, module] = nameOf(node);
      add(self, fn);
      add(byModule, module);
      const seen = new Set<string>();
      for (
        let at: number | undefined = id;
        at !== undefined;
        at = parent.get(at)
      )
        seen.add(nameOf(byId.get(at)!)[0]);
      for (const key of seen) add(total, key);
    });
  }
  return {
    busy,
    idleMs,
    text: [
      "Self time by function (share of busy samples):",
      table(self, busy, top),
      "",
      "Total time by function (self and callees):",
      table(total, busy, top),
      "",
      "Self time by module:",
      table(byModule, busy, top),
      ""
    ].join("\n")
  };
};
