/** `reelflow groups|assets|review` through the typed client against the emulator. */
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { cli } from '../support/cli';
import { FailureType } from '../../src/failures';

let emu: RunningEmulator;
let env: NodeJS.ProcessEnv;
const TOKEN = 'cli-test-token-7f3a';

beforeAll(async () => {
  emu = await startEmulator({ accessTokens: [TOKEN, 'other-user'] });
  env = { VENDOR_BASE_URL: emu.url, VENDOR_IDENTITY_URL: emu.url, REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: TOKEN };
});
afterAll(async () => {
  await emu?.close();
});

test('groups: create, list, get, update, delete', async () => {
  const created = await cli(['groups', 'create', 'cli-group', '--description', 'made by a test', '--json'], { env });
  expect(created.code).toBe(0);
  const id = created.json().Id as string;
  expect(id).toBeTruthy();

  const list = await cli(['groups', 'list'], { env });
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^ID\s+NAME\s+TYPE/);
  expect(list.stdout).toContain('cli-group');

  const upd = await cli(['groups', 'update', id, '--name', 'cli-group-2'], { env });
  expect(upd.stdout).toBe(`updated group ${id}\n`);
  const got = await cli(['groups', 'get', id, '--json'], { env });
  expect(got.json()).toMatchObject({ Id: id, Name: 'cli-group-2' });

  const del = await cli(['groups', 'delete', id, '--json'], { env });
  expect(del.json()).toEqual({ Id: id, deleted: true });
  for (const r of [created, list, upd, got, del]) expect(r.stdout + r.stderr).not.toContain(TOKEN);
});

test('assets: create into a group, list it, get it', async () => {
  const group = (await cli(['groups', 'create', 'cli-assets', '--json'], { env })).json().Id as string;
  const created = await cli(
    [
      'assets',
      'create',
      '--group',
      group,
      '--url',
      'https://media.example.com/a/cat.png',
      '--type',
      'image',
      '--name',
      'cat',
      '--json',
    ],
    { env },
  );
  expect(created.code).toBe(0);
  const assetId = created.json().Id as string;
  const list = await cli(['assets', 'list', '--group', group, '--json'], { env });
  expect(list.json().Assets).toEqual([expect.objectContaining({ Id: assetId, Name: 'cat', GroupId: group })]);
  const got = await cli(['assets', 'get', assetId], { env });
  expect(got.stdout).toMatch(new RegExp(`^Id:\\s+${assetId}$`, 'm'));
  const all = await cli(['assets', 'list', '--all', '--group', group], { env });
  expect(all.stdout).toContain('1 asset(s)');
});

test('assets create without --url is a usage error naming it', async () => {
  const r = await cli(['assets', 'create', '--group', 'g'], { env });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('"assets create" needs --url');
});

test('review: async submit then get; sync submit', async () => {
  const sub = await cli(
    ['review', 'submit', 'https://media.example.com/r/a.jpg', 'https://media.example.com/r/b.jpg', '--async', '--json'],
    { env },
  );
  expect(sub.code).toBe(0);
  const taskId = sub.json().task_id as string;
  expect(sub.json().status).toBe('pending');
  const got = await cli(['review', 'get', taskId], { env });
  expect(got.code).toBe(0);
  expect(got.stdout).toMatch(new RegExp(`^review task ${taskId}: (pending|processing|completed)`));

  const sync = await cli(['review', 'submit', 'https://media.example.com/r/c.png', '--json'], { env });
  expect(sync.code).toBe(0);
  expect(sync.json()).toMatchObject({
    status: 'completed',
    result: { items: [expect.objectContaining({ source_url: 'https://media.example.com/r/c.png' })] },
  });
});

test('a vendor rejection exits 1 with the field; a bad URL is refused before sending', async () => {
  const mixed = await cli(
    ['review', 'submit', 'https://media.example.com/r/a.jpg', 'https://media.example.com/r/b.mp4', '--json'],
    { env },
  );
  expect(mixed.code).toBe(1);
  expect(mixed.json().error).toMatchObject({
    kind: 'vendor',
    type: FailureType.RejectedError,
    field: expect.stringContaining('images'),
  });

  const notOwned = await cli(['groups', 'get', 'no-such-group'], { env });
  expect(notOwned.code).toBe(1);
  expect(notOwned.stderr).toMatch(/^reelflow: /);
  expect(notOwned.stderr).not.toContain(TOKEN);
});

test('a wrong token is a clear 401 and is never echoed', async () => {
  const r = await cli(['groups', 'list'], {
    env: { ...env, REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: 'wrong-token-123' },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).not.toContain('wrong-token-123');
});
