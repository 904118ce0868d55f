/** REELFLOW_NOTIFY_ALLOW_PRIVATE: the worker's list of private webhook targets. */
import { allowanceCovers, webhookHostRefusal, parseWebhookAllowance } from '../../src/webhooks/allowance';

test('1/true allows all (compatibility), 0/false/unset none, else hosts, IPs and CIDR subnets', () => {
  expect(parseWebhookAllowance('1')).toEqual({ all: true, hosts: [], cidrs: [] });
  expect(parseWebhookAllowance('TRUE').all).toBe(true);
  for (const none of [undefined, '', '0', 'false'])
    expect(parseWebhookAllowance(none)).toEqual({ all: false, hosts: [], cidrs: [] });
  expect(parseWebhookAllowance(' receiver , 10.1.0.0/16, 127.0.0.1, [::1], fd00::/8 ')).toEqual({
    all: false,
    hosts: ['receiver'],
    cidrs: ['10.1.0.0/16', '127.0.0.1', '::1', 'fd00::/8'],
  });
});

test('a wrong entry is named', () => {
  expect(() => parseWebhookAllowance('10.0.0.0/33')).toThrow('"10.0.0.0/33": prefix length must be 0..32');
  expect(() => parseWebhookAllowance('receiver,http://x')).toThrow(/"http:\/\/x" is neither a host name/);
  expect(() => parseWebhookAllowance('10.0.0.1/8/2')).toThrow(/neither/);
});

test('covers the listed names and addresses only', () => {
  const a = parseWebhookAllowance('receiver,10.1.0.0/16,::1');
  expect(['receiver', 'RECEIVER', '10.1.200.3', '[::1]', '::1'].map((h) => allowanceCovers(a, h))).toEqual([
    true,
    true,
    true,
    true,
    true,
  ]);
  expect(['other', '10.2.0.1', '127.0.0.1', 'localhost'].map((h) => allowanceCovers(a, h))).toEqual([
    false,
    false,
    false,
    false,
  ]);
  expect(webhookHostRefusal(a, '127.0.0.1')).toMatch(/loopback.*REELFLOW_NOTIFY_ALLOW_PRIVATE does not list it/);
  expect(webhookHostRefusal(a, 'hooks.example.com')).toBeUndefined(); // public: DNS is judged at send time
  expect(webhookHostRefusal(parseWebhookAllowance('1'), '127.0.0.1')).toBeUndefined();
});
