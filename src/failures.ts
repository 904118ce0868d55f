/**
 * Every failure type reelflow raises: the `type` of the Temporal ApplicationFailure a
 * client finds in a failed pipeline's chain (`err.cause.type`, `err.cause.cause.type`, …).
 * The strings never change: committed histories and clients match them.
 *
 * A leaf module (no imports, no zod, no node built-ins): workflow code, activities, the
 * vendor client and clients all import it. docs/failures.md, "Failure types" says who raises each
 * one and whether a retry can help.
 */
export const FailureType = {
  // ---- vendor errors: the vendor client's error classes; an activity's failure type is the class name
  /** Base class of every vendor error (not thrown as such). */
  VendorError: 'VendorError',
  /** The request provably never left this process (connect refused, DNS, TLS): safe to send again. */
  NotSentError: 'NotSentError',
  /** The request may have reached the vendor and the outcome is unknown: reconcile, never resubmit blindly. */
  AmbiguousError: 'AmbiguousError',
  /** A 2xx answer that is not JSON or not the documented shape (an AmbiguousError). */
  ResponseShapeError: 'ResponseShapeError',
  /** 429: wait the Retry-After, then call again. */
  RateLimitedError: 'RateLimitedError',
  /** The request is invalid (vendor 4xx or our own check before sending); `field` names the culprit. */
  RejectedError: 'RejectedError',
  /** 404: the vendor does not know this task, path or id (a RejectedError). */
  NotFoundError: 'NotFoundError',
  /** 401: API key or access token invalid or absent. */
  UnauthorizedError: 'UnauthorizedError',
  /** 403: the group or asset belongs to another user. */
  ForbiddenError: 'ForbiddenError',
  /** 502: asset management's upstream failed (retry later), or erase could not process the video. */
  UpstreamFailedError: 'UpstreamFailedError',
  /** A credential the interface needs is not configured (names the variable, never a value). */
  MissingCredentialError: 'MissingCredentialError',
  /** Bad or missing vendor configuration in the environment. */
  VendorConfigError: 'VendorConfigError',
  /**
   * A create on a vendor interface whose check at worker start failed for this profile
   * (credentials refused, wrong path word or base URL): refused before any vendor call.
   */
  VendorCheckFailed: 'VendorCheckFailed',

  // ---- the definition
  /**
   * The pipeline's definition (or a rerun's `reuse`, or a `resume` that no continue-as-new
   * of this workflow handed over) fails validation (the workflow's own check, before any vendor call).
   */
  InvalidDefinition: 'InvalidDefinition',
  /**
   * The worker's codec is strict (REELFLOW_CODEC_STRICT=1) and the pipeline's start input
   * arrived in plaintext, from a client without the codec: refused before any vendor call.
   */
  PlaintextPayloadRefused: 'PlaintextPayloadRefused',

  // ---- stage failures: raised by the workflow's stages, the cause of PipelineFailed
  /** A `ref:` or `fromReview` names a review item that did not pass, or an asset that does not exist. */
  InvalidReference: 'InvalidReference',
  /** Review: media did not pass and the definition requires all to pass (details: the items). */
  ReviewNotPassed: 'ReviewNotPassed',
  /** Review: the vendor cancelled the task; not resubmitted (docs/vendor-contract.md). */
  ReviewCancelled: 'ReviewCancelled',
  /** Review: the vendor task ended failed. */
  ReviewFailed: 'ReviewFailed',
  /** Assets: an asset ended in a state other than Active. */
  AssetFailed: 'AssetFailed',
  /** Generation: the vendor task expired before producing a video. */
  GenerationExpired: 'GenerationExpired',
  /** Generation: the vendor task ended failed (or without a video URL). */
  GenerationFailed: 'GenerationFailed',
  /** Erase: refused, the original generated video URL expires too soon for an erase. */
  VideoUrlExpired: 'VideoUrlExpired',
  /** Erase: the vendor task ended failed (or without a video URL). */
  EraseFailed: 'EraseFailed',
  /**
   * Policy `overBudget: fail`: the tenant's budget for the period cannot cover the next paid
   * create; raised before that create is sent (docs/tenants.md, "Budgets").
   */
  BudgetExceeded: 'BudgetExceeded',
  /**
   * A create activity found its pipeline's plan not granted (yet) and sent nothing: the
   * pipeline asks again or applies its budget policy; never a pipeline's own failure.
   */
  SpendNotGranted: 'SpendNotGranted',
  /** A create kept failing retryably (not sent, 429, 502) past its retry limit: an outage. */
  VendorUnavailable: 'VendorUnavailable',
  /** Policy `resubmit`: the create's outcome stayed unknown too many times in a row. */
  AmbiguousCreate: 'AmbiguousCreate',
  /** An operator abandoned a create whose outcome was unknown. */
  CreateAbandoned: 'CreateAbandoned',
  /** A task id the create issued is still "not found" after the read-after-write grace. */
  TaskUnknownAtVendor: 'TaskUnknownAtVendor',
  /** A status query failed in a way no retry can fix (rejected, unauthorized, forbidden, …). */
  QueryRejected: 'QueryRejected',
  /** A vendor task did not finish before its deadline. */
  VendorTaskDeadline: 'VendorTaskDeadline',
  /** Rerun: a reused output (the generated video URL, an asset's signed URL) has expired and cannot be refreshed. */
  ReusedOutputExpired: 'ReusedOutputExpired',
  /**
   * `resolveCreate`: the task id an operator typed fails the proof (unknown at the vendor, of
   * another kind, created outside the attempt, claimed by another run). Fails the Update only:
   * the pipeline goes on waiting.
   */
  TaskIdRefused: 'TaskIdRefused',
  /** Rerun: the source run is unknown or past the namespace's retention, still running, or left a task that may still succeed for a step redone with new inputs. */
  ReuseRefused: 'ReuseRefused',

  // ---- the pipeline
  /** The pipeline failed; its cause is the stage's failure. */
  PipelineFailed: 'PipelineFailed',

  // ---- archive: the archive activity's failures
  /** 403/404/410: the signed URL expired or the object is gone. */
  ArchiveUrlGone: 'ArchiveUrlGone',
  /** Any other non-2xx (retried for 5xx, 408, 429). */
  ArchiveHttpError: 'ArchiveHttpError',
  /** Connection, reset or timeout while downloading. */
  ArchiveNetworkError: 'ArchiveNetworkError',
  /** The downloaded size differs from expectedBytes or Content-Length. */
  ArchiveSizeMismatch: 'ArchiveSizeMismatch',
  /** Over the archive's size limit (REELFLOW_ARCHIVE_MAX_BYTES). */
  ArchiveTooLarge: 'ArchiveTooLarge',
  /** The URL or a redirect leads to a loopback, private or link-local address. */
  ArchiveAddressRefused: 'ArchiveAddressRefused',
  /** A folder of the archive is a symlink or resolves outside the root. */
  ArchiveUnsafePath: 'ArchiveUnsafePath',
  /** ENOSPC / EDQUOT: retried a few times a minute apart, then given up. */
  ArchiveDiskFull: 'ArchiveDiskFull',
  /** Bad input (empty name, non-http URL). */
  ArchiveInvalidInput: 'ArchiveInvalidInput',
  /** Another local file-system failure (permissions, I/O). */
  ArchiveWriteError: 'ArchiveWriteError',
  /** The object store (REELFLOW_ARCHIVE_STORE) refused or failed a request: credentials, bucket, 5xx, SlowDown. Retried. */
  ArchiveStoreError: 'ArchiveStoreError',

  // ---- completion webhooks: the delivery activity's failures
  /** The webhook URL's host is or resolves to a loopback, private or link-local address (not retried). */
  WebhookAddressRefused: 'WebhookAddressRefused',
  /** The endpoint answered other than 2xx (retried until options.notify.deliveryTimeout). */
  WebhookHttpError: 'WebhookHttpError',
  /** Connection refused, reset or timed out (retried until options.notify.deliveryTimeout). */
  WebhookNetworkError: 'WebhookNetworkError',
  /**
   * A delivery workflow not started by a videoPipeline, or whose event does not agree with
   * that pipeline's own status or result: nothing is signed or sent (not retried).
   */
  WebhookEventRefused: 'WebhookEventRefused',
  /** The pipeline's completion is checked against its result, which exists once it has closed (retried). */
  WebhookPipelineNotClosed: 'WebhookPipelineNotClosed',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Every failure type, in the order above. */
export const FAILURE_TYPES: readonly FailureType[] = Object.values(FailureType);
