/**
 * What a failed pipeline attaches to its PipelineFailed failure (its first detail), so that a
 * client reads the stage, the vendor's code and the vendor tasks without parsing messages
 * (the library's PipelineFailedError). Every pipeline attaches it.
 */
import type { StageName, VendorTaskRecord } from './messages';

export interface PipelineFailureDetails {
  /** The stage that failed ('archive': downloading the outputs). */
  stage: StageName | 'archive';
  /** The vendor's own error code, when the vendor gave one (a rejected create, a failed task). */
  vendorCode?: string;
  /** Every vendor task the pipeline created, with its last known state (some may still run, and cost). */
  vendorTasks: VendorTaskRecord[];
}
