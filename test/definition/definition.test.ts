/**
 * The definition refuses at the door what cannot work, accepts what the spec does not
 * forbid, and says for each refusal which field and what is wrong. Pure: no server.
 */
import { DefinitionError, parseDefinition, type PipelineDefinitionInput } from '../../src/definition/definition';

const TEXT = { type: 'text', text: 'a product turning on a table' } as const;
const generation = (extra: Record<string, unknown> = {}, content: unknown[] = [TEXT]) => ({
  model: 'm',
  content,
  ...extra,
});
const image = (url: string, role?: string) => ({
  type: 'image_url',
  image_url: { url },
  ...(role !== undefined ? { role } : {}),
});

/** The issues of a refused definition (fails the test when it is accepted). */
function issuesOf(def: unknown): { path: string; message: string }[] {
  try {
    parseDefinition(def);
  } catch (err) {
    expect(err).toBeInstanceOf(DefinitionError);
    return (err as DefinitionError).issues;
  }
  throw new Error(`expected a refusal of ${JSON.stringify(def)}`);
}

/** The one issue of a refused definition. */
function issueOf(def: unknown): { path: string; message: string } {
  const issues = issuesOf(def);
  expect(issues).toHaveLength(1);
  return issues[0];
}

describe('deadlines that can never be met are refused', () => {
  it.each([
    ['createAttempt', '0s', /must be positive/],
    ['createAttempt', 0, /must be positive/],
    ['vendorTask', '-5m', /must be positive/],
    ['callbackGrace', -1000, /must be positive/],
    ['pipeline', '0ms', /must be positive/],
    ['assetStuck', '0h', /must be positive/],
    ['assetPending', '0m', /must be positive/],
    ['notFoundGrace', '0s', /must be positive/],
    ['createAttempt', '5ms', /at least 1s/],
    ['vendorTask', 999, /at least 1s/],
    ['pipeline', '9000h', /at most 8760h/],
    ['callbackGrace', 'soon', /duration such as "30s"/],
    ['callbackGrace', 1.5, /whole number of milliseconds/],
    ['callbackGrace', true, /duration such as "30s"/],
  ])('deadlines.%s = %j', (key, value, why) => {
    const issue = issueOf({ generation: generation(), options: { deadlines: { [key]: value } } });
    expect(issue.path).toBe(`options.deadlines.${key}`);
    expect(issue.message).toMatch(why);
  });

  it('notFoundGrace defaults to 60s and takes any positive duration', () => {
    expect(parseDefinition({ generation: generation() }).options.deadlines.notFoundGrace).toBe('60s');
    expect(
      parseDefinition({ generation: generation(), options: { deadlines: { notFoundGrace: '2m' } } }).options.deadlines
        .notFoundGrace,
    ).toBe('2m');
  });
});

describe('generation fields: types, not guessed enumerations', () => {
  it('accepts ratio adaptive / keep_ratio, resolution 4k and duration -1 (automatic)', () => {
    for (const extra of [
      { ratio: 'adaptive' },
      { ratio: 'keep_ratio' },
      { resolution: '4k' },
      { resolution: '1080P' },
      { duration: -1 },
      { duration: 2.5 },
    ]) {
      expect(parseDefinition({ generation: generation(extra) }).generation).toMatchObject(extra);
    }
  });

  it.each([
    [{ duration: 0 }, 'generation.duration', /positive number of seconds, or -1/],
    [{ duration: -2 }, 'generation.duration', /positive number of seconds, or -1/],
    [{ ratio: '' }, 'generation.ratio', /must not be empty/],
    [{ resolution: '' }, 'generation.resolution', /must not be empty/],
    [{ seed: 1.5 }, 'generation.seed', /must be an integer, got 1.5/],
    [
      { callback_url: 'https://example.com/cb' },
      'generation.callback_url',
      /set by reelflow itself: use options.callbacks/,
    ],
  ])('refuses %j', (extra, path, why) => {
    const issue = issueOf({ generation: generation(extra) });
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(why);
  });

  it('refuses role ""', () => {
    expect(issueOf({ generation: generation({}, [TEXT, image('https://media.example.com/a.png', '')]) })).toEqual({
      path: 'generation.content[1].role',
      message: 'must not be empty',
    });
  });

  it('names a missing or unknown content type', () => {
    for (const item of [{ text: 'x' }, { type: 'gif', text: 'x' }]) {
      const issue = issueOf({ generation: generation({}, [item]) });
      expect(issue).toEqual({
        path: 'generation.content[0].type',
        message: 'must be one of text, image_url, video_url, audio_url',
      });
    }
  });
});

describe('media addresses', () => {
  it('accepts asset:// in lower case like Asset://', () => {
    for (const url of ['asset://asset-20250101-abc', 'Asset://asset-20250101-abc', 'ASSET://x']) {
      const def = parseDefinition({ generation: generation({}, [image(url)]) });
      expect(def.generation!.content[0]).toMatchObject({ image_url: { url } });
    }
  });

  it.each([
    ['Asset://', /Asset:\/\/ needs an asset id/],
    ['asset://', /Asset:\/\/ needs an asset id/],
    ['http://', /has no host/],
    ['https:///a.png', /has no host/],
    ['https://user:secret@media.example.com/a.png', /must not carry a user name or password/],
    ['https://media.example.com/a b.png', /must not contain spaces/],
    ['https://media.example.com/a.png\n', /must not contain spaces or control characters/],
    ['https://media.example.com\\@x.png', /backslash/],
    ['https://media.example.com:99999/a.png', /invalid port/],
    ['https://média.example.com/a.png', /xn--/],
    ['ref:review/first', /must be ref:review\/<n> \(0-based review index\) or ref:asset\/<name>/],
  ])('generation media %j is refused', (url, why) => {
    const issue = issueOf({ generation: generation({}, [image(url)]) });
    expect(issue.path).toBe('generation.content[0].image_url.url');
    expect(issue.message).toMatch(why);
    expect(issue.message).not.toContain('secret');
  });

  it('a URL with credentials is refused everywhere, without echoing them', () => {
    const url = 'https://user:secret@media.example.com/a.png';
    const issues = issuesOf({
      review: { media: [url] },
      assets: { group: { name: 'g' }, items: [{ name: 'a', url, type: 'Image' }] },
    });
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['review.media[0]', 'assets.items[0].url']));
    expect(JSON.stringify(issues)).not.toContain('secret');
  });
});

describe('review media (the extension table)', () => {
  it.each([
    ['https://media.example.com/a', /has no file extension/],
    ['https://media.example.com/a.txt', /unsupported extension \.txt/],
    ['https://media.example.com/a.jpg/', /has no file extension/],
    ['https://media.example.com/a.svg?x=1', /unsupported extension \.svg/],
  ])('%s is refused, naming the supported extensions', (url, why) => {
    const issue = issueOf({ review: { media: ['https://media.example.com/ok.png', url] } });
    expect(issue.path).toBe('review.media[1]');
    expect(issue.message).toMatch(why);
    expect(issue.message).toContain('.heif');
  });

  it('a media whose type does not match assetType is refused; every documented extension is accepted', () => {
    expect(
      issueOf({
        review: { media: ['https://media.example.com/a.png', 'https://media.example.com/b.mp4'], assetType: 'image' },
      }),
    ).toEqual({
      path: 'review.media[1]',
      message: 'is Video (by its extension), but review.assetType is Image',
    });
    const images = ['jpeg', 'JPG', 'png', 'webp', 'bmp', 'tiff', 'tif', 'gif', 'heic', 'heif'].map(
      (e) => `https://media.example.com/a.${e}?v=1`,
    );
    expect(parseDefinition({ review: { media: images, assetType: 'Image' } }).review!.media).toHaveLength(10);
    const others = [
      'https://m.example.com/a.mp4',
      'https://m.example.com/b.MOV',
      'https://m.example.com/c.wav',
      'https://m.example.com/d.mp3',
    ];
    expect(parseDefinition({ review: { media: others } }).review!.media).toHaveLength(4);
  });

  it('a repeated URL is refused (results are matched back by URL)', () => {
    expect(
      issueOf({ review: { media: ['https://media.example.com/a.png', 'https://media.example.com/a.png'] } }),
    ).toEqual({
      path: 'review.media[1]',
      message: 'repeats review.media[0]',
    });
  });
});

describe('asset items and groups: the field and what is wrong', () => {
  const assets = (items: unknown[], group: unknown = { name: 'g' }) => ({ assets: { group, items } });

  it.each([
    [{ name: 'a' }, 'assets.items[0]', 'needs url and type (a media to register), or fromReview (a reviewed one)'],
    [
      { name: 'a', url: 'https://media.example.com/a.png' },
      'assets.items[0].type',
      'is required with url: one of Image, Video, Audio',
    ],
    [
      { name: 'a', url: 'https://media.example.com/a.png', type: 'Photo' },
      'assets.items[0].type',
      'must be one of "Image", "Video", "Audio", got "Photo"',
    ],
    [
      { name: 'a', url: 'https://media.example.com/a.png', type: 'Image', fromReview: 0 },
      'assets.items[0].url',
      'give url (with type) or fromReview, not both',
    ],
    [
      { name: 'a', fromReview: 0, type: 'Image' },
      'assets.items[0].type',
      "comes from the reviewed media's extension with fromReview: remove it",
    ],
    [
      { name: 'a b', url: 'https://media.example.com/a.png', type: 'Image' },
      'assets.items[0].name',
      'may hold only letters, digits, - and _',
    ],
    [{ url: 'https://media.example.com/a.png', type: 'Image' }, 'assets.items[0].name', 'is required (a string)'],
  ])('%j', (item, path, message) => {
    const withReview = { review: { media: ['https://media.example.com/r.png'] }, ...assets([item]) };
    expect(issueOf(withReview)).toEqual({ path, message });
  });

  it.each([
    [{}, 'assets.group', 'needs id (an existing group) or name (found or created)'],
    [{ id: 'g-1', name: 'g' }, 'assets.group.name', 'give the group id or its name, not both'],
    [{ id: 'g-1', description: 'x' }, 'assets.group.description', 'applies only to a group given by name'],
    [{ name: 'bad name!' }, 'assets.group.name', 'may hold only Chinese characters, letters, digits, - and _'],
    [{ id: '' }, 'assets.group.id', 'must not be empty'],
  ])('group %j', (group, path, message) => {
    expect(issueOf(assets([{ name: 'a', url: 'https://media.example.com/a.png', type: 'Image' }], group))).toEqual({
      path,
      message,
    });
  });

  it('a group name of 51 characters is refused; 50 CJK characters are accepted (the client counts characters)', () => {
    const item = { name: 'a', url: 'https://media.example.com/a.png', type: 'Image' };
    expect(issueOf(assets([item], { name: 'x'.repeat(51) }))).toEqual({
      path: 'assets.group.name',
      message: 'must be at most 50 characters',
    });
    expect(parseDefinition(assets([item], { name: '素材'.repeat(25) })).assets!.group).toEqual({
      name: '素材'.repeat(25),
    });
  });
});

describe('assets.firstReadAfter', () => {
  const item = { name: 'a', url: 'https://media.example.com/a.png', type: 'Image' };
  const withWait = (firstReadAfter?: unknown) => ({
    assets: { group: { name: 'g' }, items: [item], ...(firstReadAfter === undefined ? {} : { firstReadAfter }) },
  });

  it("defaults to 5s, the vendor's documented least processing time; 0 reads at once", () => {
    expect(parseDefinition(withWait()).assets!.firstReadAfter).toBe('5s');
    expect(parseDefinition(withWait(0)).assets!.firstReadAfter).toBe(0);
    expect(parseDefinition(withWait('0s')).assets!.firstReadAfter).toBe('0s');
    expect(parseDefinition(withWait('30s')).assets!.firstReadAfter).toBe('30s');
  });

  it.each([
    ['6m', 'must be at most 5m: an asset Pending that long is stuck'],
    [-1, /must be a duration such as "0s", "30s"/],
    ['soon', /must be a duration such as "0s", "30s"/],
    [true, 'must be a duration such as "0s", "5s", or a number of milliseconds'],
  ])('%j is refused, naming the field', (value, message) => {
    const issue = issueOf(withWait(value));
    expect(issue.path).toBe('assets.firstReadAfter');
    expect(issue.message).toMatch(message);
  });
});

describe('references carry a media type', () => {
  it('ref:review/N of an audio file cannot be an image_url', () => {
    const issue = issueOf({
      review: { media: ['https://media.example.com/theme.mp3'] },
      generation: generation({}, [image('ref:review/0')]),
    });
    expect(issue).toEqual({
      path: 'generation.content[0].image_url.url',
      message: 'ref:review/0 is Audio media; image_url takes Image',
    });
  });

  it('ref:asset/NAME of a Video asset cannot be an audio_url; of an Audio one it can', () => {
    const def: PipelineDefinitionInput = {
      assets: {
        group: { name: 'g' },
        items: [{ name: 'clip', url: 'https://media.example.com/c.mp4', type: 'Video' }],
      },
      generation: { model: 'm', content: [{ type: 'audio_url', audio_url: { url: 'ref:asset/clip' } }] },
    };
    expect(issueOf(def)).toEqual({
      path: 'generation.content[0].audio_url.url',
      message: 'ref:asset/clip is Video media; audio_url takes Audio',
    });
    def.assets!.items[0] = { name: 'clip', url: 'https://media.example.com/c.mp3', type: 'Audio' };
    expect(parseDefinition(def).generation!.content[0]).toMatchObject({ audio_url: { url: 'ref:asset/clip' } });
  });
});

describe('hosts that are not public', () => {
  const NOT_PUBLIC = [
    '127.0.0.1',
    '127.8.9.10',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '0177.0.0.1',
    'localhost',
    'LOCALHOST.',
    'media.localhost',
    '[::1]',
    '169.254.169.254',
    '[fe80::1]',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '[fc00::1]',
    '[fd12:3456::1]',
    '0.0.0.0',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::ffff:192.168.0.1]',
    '[::ffff:a9fe:a9fe]',
    '[::7f00:1]',
    '100.64.0.1',
    '224.0.0.1',
    '[fec0::1]',
    '[64:ff9b::a00:1]',
    'printer.local',
    'db.internal',
    'intranet',
    '999.1.1.1',
  ];
  const PUBLIC = [
    'media.example.com',
    '8.8.8.8',
    '172.32.0.1',
    '[2001:4860:4860::8888]',
    'xn--mdia-bpa.example.com',
    'cdn.example.com.',
  ];

  it.each(NOT_PUBLIC)('%s is refused in every media field by default', (host) => {
    const url = (file: string) => `https://${host}/${file}`;
    const issues = issuesOf({
      review: { media: [url('r.png')] },
      assets: { group: { name: 'g' }, items: [{ name: 'a', url: url('a.mp3'), type: 'Audio' }] },
      generation: generation({}, [TEXT, { type: 'video_url', video_url: { url: url('v.mp4') } }]),
    });
    expect(issues.map((i) => i.path)).toEqual([
      'review.media[0]',
      'assets.items[0].url',
      'generation.content[1].video_url.url',
    ]);
    for (const i of issues)
      expect(i.message).toMatch(/^host .* is .*not a (public one: .*options\.allowPrivateHosts|valid IP address$)/);
  });

  it.each(NOT_PUBLIC.filter((h) => h !== '999.1.1.1'))('%s is accepted with options.allowPrivateHosts', (host) => {
    const def = parseDefinition({
      review: { media: [`http://${host}:8080/r.png`] },
      options: { allowPrivateHosts: true },
    });
    expect(def.options.allowPrivateHosts).toBe(true);
  });

  it('an invalid IP address is refused even with options.allowPrivateHosts', () => {
    expect(issueOf({ review: { media: ['http://999.1.1.1/r.png'] }, options: { allowPrivateHosts: true } })).toEqual({
      path: 'review.media[0]',
      message: 'host 999.1.1.1 is not a valid IP address',
    });
  });

  it.each(PUBLIC)('%s is public', (host) => {
    expect(parseDefinition({ review: { media: [`https://${host}/r.png`] } }).options.allowPrivateHosts).toBe(false);
  });
});

describe('messages name the field and what is wrong', () => {
  it.each([
    [
      { generation: generation(), bogus: 1 },
      { path: 'bogus', message: 'is not a known field' },
    ],
    [
      { generation: generation(), options: { 'a\nb': 1 } },
      { path: 'options["a\\nb"]', message: 'is not a known field' },
    ],
    [
      { generation: generation(), optoins: {} },
      { path: 'optoins', message: 'is not a known field (did you mean "options"?)' },
    ],
    [
      { generation: generation(), options: { deadlines: { vendortask: '1h' } } },
      { path: 'options.deadlines.vendortask', message: 'is not a known field (did you mean "vendorTask"?)' },
    ],
    [
      { generation: generation(), erase: 'yes' },
      { path: 'erase', message: 'must be true or false, got "yes"' },
    ],
    [{ generation: { content: [TEXT] } }, { path: 'generation.model', message: 'is required (a string)' }],
    [{ generation: generation({}, []) }, { path: 'generation.content', message: 'must hold at least one item' }],
    [
      { generation: generation(), options: { ambiguousCreate: { generation: 'retry' } } },
      { path: 'options.ambiguousCreate.generation', message: 'must be one of "resubmit", "ask", got "retry"' },
    ],
    [
      { generation: generation(), options: { historyEventsBeforeContinueAsNew: 10 } },
      { path: 'options.historyEventsBeforeContinueAsNew', message: 'must be at least 50' },
    ],
    [
      { generation: generation(), options: { allowPrivateHosts: 'yes' } },
      { path: 'options.allowPrivateHosts', message: 'must be true or false, got "yes"' },
    ],
    [
      { generation: generation(), options: { callbacks: 'sk-live-0123456789abcdef' } },
      { path: 'options.callbacks', message: 'must be true or false, got a string' },
    ],
    [{ review: { media: [] } }, { path: 'review.media', message: 'must list at least one URL' }],
    [
      { name: '', generation: generation() },
      { path: 'name', message: 'must not be empty' },
    ],
    [[], { path: '', message: 'must be an object, got an array' }],
  ])('%j', (def, issue) => {
    expect(issueOf(def)).toEqual(issue);
  });
});

describe('a misspelt field gets the CLI\'s "did you mean"', () => {
  const unknown = (def: unknown) => issuesOf(def).filter((i) => i.message.startsWith('is not a known field'));

  it('inside arrays and unions (the candidates are the fields the schema takes there)', () => {
    expect(unknown({ generation: { ...generation(), content: [{ type: 'text', txt: 'x' }] } })).toEqual([
      { path: 'generation.content[0].txt', message: 'is not a known field (did you mean "text"?)' },
    ]);
    const items = [{ name: 'a', fromReveiw: 0 }];
    expect(
      unknown({ assets: { group: { name: 'g' }, items }, review: { media: ['https://a.example.com/r.png'] } }),
    ).toEqual([{ path: 'assets.items[0].fromReveiw', message: 'is not a known field (did you mean "fromReview"?)' }]);
  });

  it('nothing close, or a key no one would type: no suggestion', () => {
    expect(unknown({ generation: generation(), zzzzzz: 1 })).toEqual([
      { path: 'zzzzzz', message: 'is not a known field' },
    ]);
    expect(unknown({ generation: generation(), ['options'.repeat(20)]: 1 })[0]?.message).toBe('is not a known field');
  });
});

describe('options.notify: a webhook URL the worker may reach', () => {
  const withNotify = (notify: unknown, extra: Record<string, unknown> = {}) => ({
    generation: generation(),
    options: { notify, ...extra },
  });

  it('takes a public http(s) URL; the delivery timeout defaults to 24h', () => {
    const def = parseDefinition(withNotify({ url: 'https://api.example.com/hooks/reelflow?k=1' }));
    expect(def.options.notify).toEqual({ url: 'https://api.example.com/hooks/reelflow?k=1', deliveryTimeout: '24h' });
    expect(
      parseDefinition(withNotify({ url: 'https://a.example.com/', deliveryTimeout: '1h' })).options.notify,
    ).toMatchObject({ deliveryTimeout: '1h' });
    expect(parseDefinition({ generation: generation() }).options.notify).toBeUndefined();
  });

  it.each([
    [{ url: 'ftp://a.example.com/x' }, 'options.notify.url', /http/],
    [{ url: 'https://user:pw@a.example.com/x' }, 'options.notify.url', /user name or password/],
    [{}, 'options.notify.url', /required/i],
    [{ url: 'https://a.example.com/', deliveryTimeout: '0s' }, 'options.notify.deliveryTimeout', /positive/],
    [{ url: 'https://a.example.com/', retries: 3 }, 'options.notify.retries', /./],
  ])('refuses %j naming the field', (notify, path, message) => {
    const issue = issueOf(withNotify(notify));
    expect(issue.path).toBe(path);
    expect(issue.message).toMatch(message);
  });

  it.each(['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'https://10.0.0.5/hook', 'http://hooks.internal/x'])(
    'leaves the non-public %s to the worker (its REELFLOW_NOTIFY_ALLOW_PRIVATE), allowPrivateHosts or not',
    (url) => {
      for (const allowPrivateHosts of [false, true])
        expect(parseDefinition(withNotify({ url }, { allowPrivateHosts })).options.notify?.url).toBe(url);
    },
  );

  it('names an endpoint secret by id; an invalid IP is still refused', () => {
    const def = parseDefinition(withNotify({ url: 'https://a.example.com/', secret: 'orders-eu' }));
    expect(def.options.notify?.secret).toBe('orders-eu');
    expect(issueOf(withNotify({ url: 'https://a.example.com/', secret: 'no spaces' })).path).toBe(
      'options.notify.secret',
    );
    expect(issueOf(withNotify({ url: 'http://999.1.1.1/x' })).message).toMatch(/not a valid IP/);
  });
});

describe('validation in one pass: schema and cross-reference errors together', () => {
  test('a schema error elsewhere does not hide a reference to a missing asset', () => {
    const issues = issuesOf({
      assets: {
        group: { name: 'g' },
        items: [{ name: 'hero', type: 'Image', url: 'https://media.example.com/a.jpg' }],
      },
      generation: generation({}, [image('ref:asset/logo')]),
      erase: 'yes',
    });
    expect(issues.map((i) => i.path)).toEqual(['erase', 'generation.content[0].image_url.url']);
    expect(issues[1].message).toBe('no asset named "logo" in assets.items');
  });

  test('a rule reading a section that failed is left out (no false "no review stage")', () => {
    const issues = issuesOf({
      review: { media: 'not-a-list' },
      generation: generation({}, [image('ref:review/0')]),
    });
    expect(issues.map((i) => i.path)).toEqual(['review.media']);
  });
});
