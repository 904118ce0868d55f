/**
 * `reelflow doctor`: every preflight check, read-only, before the first paid call
 * (src/workers/doctor). ✓ or ✗ per check, with the fix under each ✗; exit 1 when any failed.
 */
import { checksJson, formatChecks, runDoctor } from '../../../workers/doctor';
import { EXIT } from '../output';
import type { CommandFn } from '../session';

export const doctor: CommandFn = async (ctx, session) => {
  const checks = await runDoctor({
    env: ctx.io.env,
    connect: async () => {
      const connection = await session.connection();
      return { connection, namespace: session.namespace ?? 'default' };
    },
  });
  ctx.emit(checksJson(checks), () => formatChecks(checks));
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failed;
};
