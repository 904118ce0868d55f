/** Reading Markdown pages the way GitHub shows them: prose outside fences, headings. */

/** The text outside fenced code blocks, line by line (a heading or a link in a fence is neither). */
export function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The text of every heading (any level), links reduced to their text, as the page writes it. */
export function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  for (const line of proseLines(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) headings.push(m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
  }
  return headings;
}

/** GitHub's heading anchor: lower case, punctuation dropped, each space a `-`; repeats get -1, -2, …. */
export function slugsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const text of headingsOf(markdown)) {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** Relative link targets of a Markdown page (no scheme), outside code. */
export function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) targets.push(m[1]);
    }
  }
  return targets;
}
