/** Why fetching an archived file failed (./archived-file.ts), with the option or variable at fault. */
export type ArchiveFetchReason =
  'config' | 'none-archived' | 'unknown-name' | 'unauthorized' | 'not-found' | 'http' | 'unreachable' | 'mismatch';

export class ArchiveFetchError extends Error {
  override readonly name = 'ArchiveFetchError';
  constructor(
    message: string,
    readonly reason: ArchiveFetchReason,
    /** The option or variable at fault (reason `config`), e.g. "archiveUrl", "REELFLOW_ARCHIVE_TOKEN". */
    readonly option?: string,
  ) {
    super(message);
  }
}
