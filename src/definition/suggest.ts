/**
 * "Did you mean": the closest of the known words to a misspelt one, for usage errors of the
 * CLI (unknown commands and options, docs/cli.md) and unknown fields of a definition
 * (docs/definitions.md). Pure, so the workflow's own validation may use it too.
 */

/** Edit distance (insertions, deletions, substitutions) between two words. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

/**
 * ` (did you mean "<word>"?)` naming the closest candidate, or '' when none is close: within
 * a third of the candidate's length (at least 1), so a wild guess suggests nothing.
 */
export function didYouMean(word: string, candidates: readonly string[]): string {
  // A word this long is no misspelling, and its distance would cost length × length.
  if (word.length > 64) return '';
  const best = candidates
    .map((c) => ({ c, d: distance(word, c) }))
    .filter((x) => x.d <= Math.max(1, Math.floor(x.c.length / 3)))
    .sort((x, y) => x.d - y.d)[0];
  return best ? ` (did you mean "${best.c}"?)` : '';
}
