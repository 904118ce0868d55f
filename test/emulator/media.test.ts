import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startEmulator } from '../../src/emulator';
import { findMediaDir, MediaLibrary } from '../../src/emulator/media';
import { UrlSigner } from '../../src/emulator/signing';
import { isPublicHttpUrl, mediaTypeOf } from '../../src/emulator/urls';
import { durationFor, resolveTimings } from '../../src/emulator/timings';
import { API_KEY } from '../support/emulator';

describe('sample media', () => {
  it.each(['generated.mp4', 'erased.mp4'])('%s is a small H.264 MP4', (name) => {
    const file = path.join(findMediaDir(), name);
    expect(statSync(file).size).toBeLessThan(60 * 1024);
    const bytes = readFileSync(file);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.includes(Buffer.from('avc1'))).toBe(true); // H.264 sample entry
    expect(bytes.indexOf(Buffer.from('moov'))).toBeLessThan(bytes.indexOf(Buffer.from('mdat'))); // faststart
  });

  it('serves byte ranges, suffix ranges and refuses unsatisfiable ones', () => {
    const lib = new MediaLibrary();
    const size = lib.serve('generated', 'GET', undefined).body as Buffer;
    expect(lib.serve('generated', 'GET', 'bytes=-10')).toMatchObject({
      status: 206,
      headers: { 'content-length': '10' },
    });
    expect(lib.serve('generated', 'GET', `bytes=${size.length}-`).status).toBe(416);
    expect(lib.serve('generated', 'GET', 'bytes=5-2').status).toBe(416);
    expect(lib.serve('erased', 'HEAD', undefined)).toMatchObject({ status: 200, body: Buffer.alloc(0) });
  });
});

describe('helpers', () => {
  it('signs paths with an instance key: another instance cannot verify', () => {
    const a = new UrlSigner();
    const q = new URLSearchParams(a.sign('/media/x.mp4', 5_000_000));
    expect(a.verify('/media/x.mp4', q)).toEqual({ ok: true, expiresAtMs: 5_000_000 });
    expect(a.verify('/media/y.mp4', q)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(new UrlSigner().verify('/media/x.mp4', q).ok).toBe(false);
    expect(a.verify('/media/x.mp4', new URLSearchParams())).toEqual({ ok: false, reason: 'unsigned' });
  });

  it('tells public URLs from private ones', () => {
    for (const ok of ['https://example.com/a.png', 'http://8.8.8.8/a', 'https://[2001:db8::1]/a'])
      expect(isPublicHttpUrl(ok)).toBe(true);
    for (const bad of [
      'http://localhost/a',
      'http://127.0.0.1/a',
      'http://10.1.2.3/a',
      'http://172.20.0.1/a',
      'http://192.168.0.1/a',
      'http://169.254.1.1/a',
      'http://[::1]/a',
      'http://intranet/a',
      'http://printer.local/a',
      'mailto:x@y.z',
      'not a url',
    ]) {
      expect(isPublicHttpUrl(bad)).toBe(false);
    }
    expect(isPublicHttpUrl('http://127.0.0.1:4000/media/x.mp4', new Set(['127.0.0.1:4000']))).toBe(true);
  });

  it('infers media types from extensions, ignoring the query', () => {
    expect(mediaTypeOf('https://e.com/a.JPG?x=.mp4')).toBe('Image');
    expect(mediaTypeOf('https://e.com/a.mov')).toBe('Video');
    expect(mediaTypeOf('https://e.com/a.mp3')).toBe('Audio');
    expect(mediaTypeOf('https://e.com/a.txt')).toBeUndefined();
  });

  it('resolves profiles; ranged durations are stable per resource and within range', () => {
    expect(resolveTimings(undefined)).toEqual(resolveTimings('fast'));
    expect(resolveTimings({ tickMs: 5 }).tickMs).toBe(5);
    expect(() => resolveTimings('slow' as 'fast')).toThrow(/unknown emulator profile/);
    const realistic = resolveTimings('realistic').assetProcessingMs;
    const picks = ['a', 'b', 'c', 'd'].map((id) => durationFor(realistic, id));
    expect(picks.every((ms) => ms >= 5_000 && ms <= 30_000)).toBe(true);
    expect(durationFor(realistic, 'a')).toBe(picks[0]);
  });
});

describe('publicUrl', () => {
  test('issued video URLs use the public base URL clients reach the emulator by', async () => {
    const emu = await startEmulator({
      port: 0,
      publicUrl: 'http://emulator.example:8080/',
      profile: { generationQueuedMs: 0, generationRunningMs: 0 },
    });
    try {
      const local = `http://127.0.0.1:${emu.port}`;
      const created = await fetch(`${local}/v1/task/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', content: [{ type: 'text', text: 'public url' }] }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      expect(emu.url).toBe('http://emulator.example:8080');
      emu.advanceClock(10);
      const task = await fetch(`${local}/v1/task/get/${created.id}`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      }).then((r) => r.json() as Promise<{ status: string; video_url?: string }>);
      expect(task.status).toBe('succeeded');
      expect(task.video_url).toMatch(/^http:\/\/emulator\.example:8080\/media\/generated\//);
    } finally {
      await emu.close();
    }
  });
});
