/**
 * When a vendor output's URL stops being usable, in one place for the workflow (workflow
 * time) and for `rerun` on the client (its own clock). Pure: no Temporal, no I/O.
 */
import { SIGNED_ASSET_URL_VALIDITY_MS } from '../vendor-api/documented-values';
import type { AssetResult, ReusedOutputs } from './messages';

/** Time an erase needs before the source URL expires; closer than this, we refuse. */
export const ERASE_SAFETY_MARGIN_MS = 10 * 60_000;

/** A signed asset URL this close to its ~12 h end is refreshed rather than handed on. */
export const ASSET_URL_REFRESH_MARGIN_MS = 60 * 60_000;

/** A reused output that can no longer be used, and why. */
export interface ExpiredOutput {
  /** Where it is in the result, e.g. "generation.videoUrl". */
  output: string;
  expiresAt: string;
  why: string;
}

/**
 * The reused generated video URL when what runs next needs it and it has expired: erase
 * takes only the original URL (valid 24 h from generation, with a margin for the erase
 * itself), and the archive downloads it again.
 */
export function expiredReuse(
  reuse: Pick<ReusedOutputs, 'generation'>,
  uses: { erase: boolean; archive: boolean },
  nowMs: number,
): ExpiredOutput | undefined {
  const gen = reuse.generation;
  if (!gen) return undefined;
  const expiresAt = Date.parse(gen.videoUrlExpiresAt);
  const base = { output: 'generation.videoUrl', expiresAt: gen.videoUrlExpiresAt };
  if (uses.erase && nowMs + ERASE_SAFETY_MARGIN_MS > expiresAt) {
    return { ...base, why: 'the vendor erases only the original generated URL, valid 24 h from generation' };
  }
  if (uses.archive && nowMs >= expiresAt) {
    return { ...base, why: 'the archive would download the generated video from it again' };
  }
  return undefined;
}

/** Whether a reused asset's signed URL is (nearly) past its ~12 h and should be fetched again by GetAsset. */
export function assetUrlStale(asset: Pick<AssetResult, 'signedUrlFetchedAt'>, nowMs: number): boolean {
  if (!asset.signedUrlFetchedAt) return true;
  return nowMs + ASSET_URL_REFRESH_MARGIN_MS >= Date.parse(asset.signedUrlFetchedAt) + SIGNED_ASSET_URL_VALIDITY_MS;
}
