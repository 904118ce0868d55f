/**
 * The CLI is a small dispatcher over one module per command: every pipeline command of
 * the synopsis (cli-spec.ts) is src/starters/cli/commands/<name>.ts exporting a function of
 * that name in camelCase ("schedule create": schedule-create.ts exporting scheduleCreate;
 * codec-server.ts exporting codecServer); the vendor commands (groups, assets, review)
 * share commands/vendor.ts.
 */
import { COMMANDS } from '../../src/starters/cli/spec';

const pipelineCommands = COMMANDS.filter((c) => c.needs !== 'vendor').map((c) => c.name);

it.each(pipelineCommands)('%s is a module of its own', async (name) => {
  const file = name.replace(' ', '-');
  const fn = name.replace(/[ -](\w)/g, (_, c: string) => c.toUpperCase());
  const mod = (await import(`../../src/starters/cli/commands/${file}`)) as Record<string, unknown>;
  expect(typeof mod[fn]).toBe('function');
});

test('the vendor commands share one module', async () => {
  expect(COMMANDS.filter((c) => c.needs === 'vendor').map((c) => c.name.split(' ')[0])).toEqual(
    expect.arrayContaining(['groups', 'assets', 'review']),
  );
  const mod = await import('../../src/starters/cli/commands/vendor');
  expect(typeof mod.runVendorCommand).toBe('function');
});
