/**
 * The literal address judgement, as pure code: these strings are only classified, never
 * connected to (the connecting paths are tested in archive.test.ts with 127.x servers only).
 */
import { createAddressGuard, nonPublicReason } from '../../src/activities/public-address';
import { nonPublicHostReason } from '../../src/definition/hosts';

test.each([
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['localhost', 'loopback'],
  ['LOCALHOST', 'loopback'],
  ['media.localhost', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['100.64.0.1', 'shared (carrier-grade NAT)'],
  ['224.0.0.1', 'multicast or reserved'],
  ['255.255.255.255', 'multicast or reserved'],
  ['ff02::1', 'multicast or reserved'],
  ['::7f00:1', 'multicast or reserved'],
  // Ranges the archive once let through and the definition validator refused: one judgement now.
  ['fec0::1', 'private'],
  ['192.0.2.1', 'multicast or reserved'],
  ['198.18.0.1', 'multicast or reserved'],
  ['2001:db8::1', 'multicast or reserved'],
  ['64:ff9b::a00:1', 'special-purpose (rfc6052)'],
  ['64:ff9b::808:808', 'special-purpose (rfc6052)'],
  ['2002:7f00:1::1', 'special-purpose (6to4)'],
  ['::ffff:0:7f00:1', 'special-purpose (rfc6145)'],
])('%s is not public: %s', (host, reason) => {
  expect(nonPublicReason(host)).toBe(reason);
});

test.each([
  '8.8.8.8',
  '172.32.0.1',
  '172.15.255.255',
  '192.169.0.1',
  '100.128.0.1',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  'cdn.example.com',
  'localhost.example.com',
])('%s is public (or a name only DNS can judge)', (host) => {
  expect(nonPublicReason(host)).toBeUndefined();
});

/** Literal addresses, both written as an archive peer and as a URL host. */
const LITERALS = [
  '127.0.0.1',
  '::1',
  '::7f00:1',
  '100.64.0.1',
  '224.0.0.1',
  'ff02::1',
  'fec0::1',
  '64:ff9b::a00:1',
  '2002:7f00:1::1',
  '192.0.2.1',
  '8.8.8.8',
  '2001:4860:4860::8888',
];

test.each(LITERALS)('the archive and the definition validator judge %s alike', (ip) => {
  const urlHost = ip.includes(':') ? `[${ip}]` : ip;
  expect(nonPublicHostReason(urlHost) === undefined).toBe(nonPublicReason(ip) === undefined);
  expect(nonPublicReason(urlHost)).toBe(nonPublicReason(ip));
});

test('the opt-in: true allows any address, a list only its own, names like localhost only with true', () => {
  expect(createAddressGuard({}).refusalOf('10.0.0.1')?.message).toBe(
    'refused to connect to 10.0.0.1: a private address, not public',
  );
  expect(createAddressGuard({ allowPrivate: true }).refusalOf('10.0.0.1')).toBeUndefined();
  const listed = createAddressGuard({ allowPrivate: ['127.0.0.1', '10.1.0.0/16'] });
  expect(listed.refusalOf('127.0.0.1')).toBeUndefined();
  expect(listed.refusalOf('10.1.200.3')).toBeUndefined();
  expect(listed.refusalOf('10.2.0.1')).toBeDefined();
  expect(listed.refusalOf('127.0.0.2')).toBeDefined();
  expect(listed.refusalOf('localhost')).toBeDefined();
  expect(createAddressGuard({ allowPrivate: false }).refusalOf('8.8.8.8')).toBeUndefined();
  expect(createAddressGuard({}).refusalOf('0.0.0.0')?.message).toBe(
    'refused to connect to 0.0.0.0: an unspecified address, not public',
  );
});
