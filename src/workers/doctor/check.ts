/**
 * One preflight check's outcome, and how `reelflow doctor` and the worker's start show
 * a list of them. A failed check always says how to fix it; no outcome carries a secret
 * (details name variables and hosts, never their secret values).
 */

export interface CheckResult {
  /** Stable id, e.g. "temporal.namespace", "vendor.default.erase". */
  id: string;
  /** What was checked, in words. */
  title: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** How to fix it (failed checks only). */
  fix?: string;
  /**
   * A failure that says the configuration is wrong (credentials refused, no such path),
   * not that the vendor was busy or unreachable for a moment: only these hold back creates.
   */
  definitive?: boolean;
  /**
   * Passed, with something to fix all the same (e.g. a tenant that may spend on every
   * profile): shown with `!` and its fix, never counted as failed (docs/doctor.md).
   */
  warning?: true;
}

export const pass = (id: string, title: string, detail: string): CheckResult => ({ id, title, ok: true, detail });

export const fail = (id: string, title: string, detail: string, fix: string): CheckResult => ({
  id,
  title,
  ok: false,
  detail,
  fix,
});

/** A check that passed with a warning (see CheckResult.warning). */
export const warn = (id: string, title: string, detail: string, fix: string): CheckResult => ({
  ...pass(id, title, detail),
  fix,
  warning: true,
});

/** A failure that proves the configuration wrong (see CheckResult.definitive). */
export const wrong = (id: string, title: string, detail: string, fix: string): CheckResult => ({
  ...fail(id, title, detail, fix),
  definitive: true,
});

/** Runs a check; a throw becomes a failed check whose detail is the error's message. */
export async function guarded(
  id: string,
  title: string,
  fix: string,
  run: () => Promise<CheckResult | CheckResult[]>,
): Promise<CheckResult[]> {
  try {
    const r = await run();
    return Array.isArray(r) ? r : [r];
  } catch (err) {
    return [fail(id, title, err instanceof Error ? err.message : String(err), fix)];
  }
}

const mark = (c: CheckResult) => (!c.ok ? '✗' : c.warning ? '!' : '✓');

/** One line per check, then the fix indented under each ✗ and each warning (!). */
export function formatChecks(checks: readonly CheckResult[]): string[] {
  const lines = checks.flatMap((c) => [
    `${mark(c)} ${c.title}: ${c.detail}`,
    ...((c.ok && !c.warning) || !c.fix ? [] : [`    fix: ${c.fix}`]),
  ]);
  const failed = checks.filter((c) => !c.ok).length;
  const warnings = checks.filter((c) => c.ok && c.warning).length;
  const summary = failed ? `${failed} of ${checks.length} checks failed` : `all ${checks.length} checks passed`;
  lines.push(warnings ? `${summary}, ${warnings} with a warning` : summary);
  return lines;
}

/** The --json document. */
export function checksJson(checks: readonly CheckResult[]): {
  ok: boolean;
  failed: number;
  warnings: number;
  checks: CheckResult[];
} {
  const failed = checks.filter((c) => !c.ok).length;
  const warnings = checks.filter((c) => c.ok && c.warning).length;
  return { ok: failed === 0, failed, warnings, checks: [...checks] };
}
