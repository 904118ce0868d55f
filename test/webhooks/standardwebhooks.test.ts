/**
 * Our signing against the official Standard Webhooks library (npm `standardwebhooks`, a
 * devDependency only): what we send, a rotation's two signatures included, verifies there,
 * and what it signs verifies with verifyWebhook.
 */
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, webhookHeaders } from '../../src/webhooks/signing';

const OLD = `whsec_${Buffer.from('the-old-webhook-secret-key').toString('base64')}`;
const NEW = `whsec_${Buffer.from('the-new-webhook-secret-key').toString('base64')}`;
const body = JSON.stringify({ type: 'pipeline.completed', data: { pipelineId: 'p-1' } });

test('a rotation: the official library verifies our delivery under either secret', () => {
  const now = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders(`${OLD} ${NEW}`, 'p-1:ended', now, body);
  for (const secret of [OLD, NEW]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  const stranger = `whsec_${Buffer.from('a-stranger-webhook-secret').toString('base64')}`;
  expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
});

test("the official library's signature verifies with verifyWebhook, and equals ours", () => {
  const at = new Date();
  const signature = new Webhook(NEW).sign('msg_1', at, body);
  const ts = Math.floor(at.getTime() / 1000);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signature };
  expect(verifyWebhook(NEW, headers, body)).toEqual(JSON.parse(body));
  expect(webhookHeaders(NEW, 'msg_1', ts, body)['webhook-signature']).toBe(signature);
});
