/**
 * Archive: download a vendor output before its URL expires (docs/architecture.md,
 * "Outputs"), keyed by the vendor task that produced it. After a continue-as-new an output
 * already archived is not fetched again.
 */
import type { ArchivedFile, PipelineResult } from '../../contract/messages';
import type { PipelineRuntime } from '../lib/pipeline-runtime';
import { ARCHIVE_OPTIONS, archiving } from '../lib/proxies';

/** ".mp4" from a video URL's path (query ignored), so archived files open in a player. */
export function extensionOf(url: string): string {
  const m = /^[^?#]*?(\.[A-Za-z0-9]{1,5})(?:[?#]|$)/.exec(url);
  return m ? m[1].toLowerCase() : '';
}

export async function archiveOutput(
  rt: PipelineRuntime,
  result: PipelineResult,
  what: string,
  output: { taskId: string; videoUrl: string },
): Promise<void> {
  const name = `${what}${extensionOf(output.videoUrl)}`;
  if (result.archived.some((f) => f.name === name)) return;
  rt.board.status.stage = 'archive';
  rt.board.refresh();
  const t0 = Date.now();
  const file: ArchivedFile = await archiving.archiveOutput.executeWithOptions(
    { ...ARCHIVE_OPTIONS, ...rt.board.taskOptions, summary: rt.board.summary(name) },
    [{ pipelineId: rt.board.status.pipelineId, taskId: output.taskId, name, url: output.videoUrl }],
  );
  result.archived.push(file);
  result.timings.archive = (result.timings.archive ?? 0) + (Date.now() - t0);
}
