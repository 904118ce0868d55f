/** `reelflow setup [--wait <seconds>]`: registers reelflow's search attributes on the namespace (idempotent). */
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../../contract/search-attributes';
import { EXIT } from '../output';
import type { CommandFn } from '../session';
import { registerSearchAttributes } from '../../client/register-search-attributes';

export const setup: CommandFn = async (ctx, session) => {
  const deadline = Date.now() + (ctx.int('wait') ?? 0) * 1_000;
  for (;;) {
    try {
      const connection = await session.connection();
      const namespace = session.namespace ?? 'default';
      const added = await registerSearchAttributes(connection, namespace);
      ctx.emit({ namespace, added, searchAttributes: REELFLOW_SEARCH_ATTRIBUTES }, () => [
        added.length
          ? `${namespace}: registered ${added.join(', ')}`
          : `${namespace}: search attributes already registered`,
      ]);
      return EXIT.ok;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
};
