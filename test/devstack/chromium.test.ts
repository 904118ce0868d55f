/** The screenshot script's browser lookup: a missing Chromium is named with its install command. */
import { DEFAULT_CHROMIUM, findChromium } from '../../tools/devstack/chromium';

test('a missing browser fails with the apt-get command, before anything starts', () => {
  expect(() => findChromium({ CHROMIUM: '/nonexistent/chromium' })).toThrow(
    '/nonexistent/chromium not found: install it with `apt-get install chromium` (or set CHROMIUM=<path>)',
  );
});

test('CHROMIUM overrides the default path', () => {
  expect(findChromium({ CHROMIUM: process.execPath })).toBe(process.execPath);
  expect(DEFAULT_CHROMIUM).toBe('/usr/bin/chromium');
});
