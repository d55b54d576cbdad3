/**
 * Relative links in Markdown and the heading ids they may point at, by
 * GitHub's rules, so a moved page or a renamed heading fails a test instead
 * of a reader.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A link as written: its 1-based line and its target. */
export interface Link {
  line: number;
  target: string;
}

const FENCE = /^\s*(`{3,}|~{3,})/;

/** The text with fenced code blocks blanked, line count kept. */
const withoutFences = (markdown: string): string => {
  let open: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const fence = FENCE.exec(line)?.[1];
      if (open === undefined) {
        if (fence === undefined) return line;
        open = fence[0]!;
        return "";
      }
      if (fence?.[0] === open) open = undefined;
      return "";
    })
    .join("\n");
};

/** Inline code spans blanked (a span may cross a line), newlines kept. */
const withoutCodeSpans = (text: string): string =>
  text.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, " "));

/**
 * GitHub's heading id: lower case, punctuation other than `-` and `_`
 * dropped, each space a hyphen. Markup in the heading is stripped first.
 */
export const githubSlug = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/**
 * Every id a page's headings get (a repeated heading's copies `-1`, `-2`…),
 * plus explicit `<a id>` / `<a name>` anchors.
 */
export const headingIds = (markdown: string): Set<string> => {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const add = (text: string) => {
    const base = githubSlug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  };
  const lines = withoutFences(markdown).split("\n");
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) {
      add(atx[1]!);
      return;
    }
    // A setext heading: a paragraph line underlined with = or -.
    const previous = lines[i - 1] ?? "";
    if (
      /^ {0,3}(=+|-+)\s*$/.test(line) &&
      previous.trim() !== "" &&
      !/^\s*([-*+>|#]|\d+\.)/.test(previous)
    )
      add(previous);
  });
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g))
    ids.add(m[1]!);
  return ids;
};

/**
 * A page's own contents: the ids of its `##` sections in order, and the
 * `#anchors` of the bulleted links above the first of them.
 */
export const contents = (
  markdown: string
): { sections: string[]; listed: string[] } => {
  const lines = withoutFences(markdown).split("\n");
  const first = lines.findIndex((line) => /^##\s/.test(line));
  const sections = lines.flatMap((line) => {
    const h2 = /^##\s+(.*?)\s*$/.exec(line);
    return h2 ? [githubSlug(h2[1]!)] : [];
  });
  const listed = lines
    .slice(0, first === -1 ? lines.length : first)
    .flatMap((line) => {
      const item = /^\s*[-*]\s+\[.*\]\(#([^)\s]+)\)/.exec(line);
      return item ? [item[1]!] : [];
    });
  return { sections, listed };
};

const lineOf = (text: string, index: number): number =>
  text.slice(0, index).split("\n").length;

/**
 * Every link and image target outside code: inline (`[text](target)`),
 * reference definitions (`[name]: target`) and HTML `href` / `src`.
 */
export const links = (markdown: string): Link[] => {
  const text = withoutCodeSpans(withoutFences(markdown));
  const found: Link[] = [];
  const patterns = [
    /\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g,
    /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm,
    /\b(?:href|src)="([^"]*)"/g
  ];
  for (const pattern of patterns)
    for (const m of text.matchAll(pattern))
      found.push({ line: lineOf(text, m.index), target: m[1]! });
  return found.sort((a, b) => a.line - b.line);
};

/** A scheme (`https:`, `mailto:`): not a file of the repository. */
const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/**
 * What is wrong with a file's relative links, one line per link:
 * `file:line: target: why`. Targets resolve from the file's folder (or
 * from `root` when they start with `/`, as GitHub resolves them); an
 * anchor must be a heading id of the Markdown file it names.
 */
export const brokenLinks = (file: string, root: string): string[] => {
  const markdown = readFileSync(file, "utf8");
  const name = relative(root, file);
  const problems: string[] = [];
  for (const { line, target } of links(markdown)) {
    if (target === "" || external(target)) continue;
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : target.slice(hash + 1);
    const resolved =
      path === ""
        ? file
        : path.startsWith("/")
          ? join(root, path)
          : resolve(dirname(file), path);
    const where = `${name}:${line}: ${target}`;
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file (${relative(root, resolved)})`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith(".md")) continue;
    if (statSync(resolved).isDirectory()) continue;
    const ids = headingIds(readFileSync(resolved, "utf8"));
    if (!ids.has(decodeURIComponent(anchor)))
      problems.push(
        `${where}: no heading with id "${anchor}" in ${relative(root, resolved)}`
      );
  }
  return problems;
};
