/** Which URLs a bound webhook secret covers (src/webhooks/binding.ts, docs/webhooks.md, the secrets). */
import { boundUrlProblem, urlCovers } from '../../src/webhooks/binding';

test('a prefix covers its own origin and the paths below it, nothing else', () => {
  const covered = (bound: string, url: string) => urlCovers(bound, url);
  expect(covered('https://api.example.com/hooks/', 'https://api.example.com/hooks/reelflow?t=1')).toBe(true);
  expect(covered('https://api.example.com/hooks', 'https://api.example.com/hooks/a')).toBe(true);
  expect(covered('https://api.example.com/hooks', 'https://API.example.com:443/hooks')).toBe(true);
  expect(covered('https://api.example.com', 'https://api.example.com/anything')).toBe(true);
  for (const url of [
    'https://api.example.com/hooksmith', // not a path segment of the prefix
    'https://api.example.com.evil.net/hooks/a', // a string prefix, another host
    'http://api.example.com/hooks/a', // another scheme
    'https://api.example.com:8443/hooks/a', // another port
    'https://api.example.com/hooks/../admin', // climbs out once parsed
    'https://api.example.com/hooks/%2e%2e/admin',
    'https://u:p@api.example.com/hooks/a',
    'not a url',
  ])
    expect([url, covered('https://api.example.com/hooks', url)]).toEqual([url, false]);
  // A bound URL with a query covers exactly itself.
  expect(covered('https://a.example.com/x?k=1', 'https://a.example.com/x?k=1')).toBe(true);
  expect(covered('https://a.example.com/x?k=1', 'https://a.example.com/x?k=2')).toBe(false);
  expect(covered('https://a.example.com/x?k=1', 'https://a.example.com/x/y?k=1')).toBe(false);
});

test('a configured URL list: each item checked, named by position', () => {
  expect(boundUrlProblem('https://a.example.com/, http://10.0.0.5:8080/hooks')).toBeUndefined();
  expect(boundUrlProblem(' , ')).toMatch(/must be an http\(s\) URL/);
  expect(boundUrlProblem('https://a.example.com/, ftp://b.example.com/')).toBe('item 2 of 2 must be an http(s) URL');
  expect(boundUrlProblem('https://a.example.com/#frag')).toBe('must not carry a #fragment');
});
