/** Building blocks shared by the per-interface schemas. Pure: workflows may import. */
import { z } from 'zod';

// Authority without userinfo: credentials in URLs would end up in logs and history.
const HTTP_URL = /^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/i;
const ASSET_ADDRESS = /^asset:\/\/\S+$/i;
const INLINE_MEDIA = /^data:/i;

export const NOT_INLINE =
  'inline/base64 media is not supported; use a public http(s) URL or an Asset:// address';

/** A public http(s) URL (callbacks, review and asset uploads, erase input). */
export const HttpUrlSchema = z
  .string()
  .refine((s) => !INLINE_MEDIA.test(s), NOT_INLINE)
  .refine((s) => INLINE_MEDIA.test(s) || HTTP_URL.test(s), 'must be a public http(s) URL');

/** Generation media: a public http(s) URL or an Asset:// address (spec 2.2). */
export const MediaRefSchema = z
  .string()
  .refine((s) => !INLINE_MEDIA.test(s), NOT_INLINE)
  .refine(
    (s) => INLINE_MEDIA.test(s) || HTTP_URL.test(s) || ASSET_ADDRESS.test(s),
    'must be a public http(s) URL or an Asset:// address',
  );

export const NonEmptyString = z.string().min(1, 'must not be empty');
