/**
 * The Web UI's "current details" of a pipeline: a small markdown table, one row per
 * stage that runs (state, vendor task ids, progress, elapsed), then any error. At most
 * 12 lines, and a waiting reason cut short, so the Web UI's fixed-height panel shows the
 * command and the table whole: a pipeline waiting for an operator opens with the
 * `reelflow resolve` command, its table follows, then why it waits (docs/operations.md,
 * "Answering an operator wait from the Web UI"). Pure: the runtime calls it on every refresh.
 */
import { STAGES, type PipelineStatus, type StageName, type StageStatus } from './messages';
import { kindsOf } from './stages';
import { printable } from './printable';

/**
 * A finished stage's duration; a running one's start time (the UI shows the details as of
 * the last workflow task, so a running "elapsed" would be stale the moment it is read).
 */
function elapsed(startedAt?: string, endedAt?: string): string {
  if (!startedAt) return '';
  if (!endedAt) return `since ${startedAt.slice(11, 19)} UTC`;
  const ms = Date.parse(endedAt) - Date.parse(startedAt);
  return ms < 60_000
    ? `${Math.round(ms / 1000)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function taskIds(s: PipelineStatus, stage: StageName): string {
  const kinds = kindsOf(stage);
  const ids = s.vendorTasks.filter((t) => kinds.includes(t.kind)).map((t) => `${t.id}${t.orphan ? ' (orphan)' : ''}`);
  return ids.length > 3 ? `${ids.slice(0, 3).join(', ')} +${ids.length - 3}` : ids.join(', ');
}

/** "done (reused from <pipelineId>)" for a stage whose output an earlier pipeline made. */
export function stateText(st: StageStatus): string {
  return st.reusedFrom ? `${st.state} (reused from ${st.reusedFrom})` : st.state;
}

/**
 * The panel has a fixed height (about nine lines of text at 1400×1000; the reason comes
 * last): a reason past REASON_CHARS is cut, and `reelflow status` shows it whole.
 */
const REASON_CHARS = 100;
function waitReason(reason: string): string {
  const text = printable(reason, REASON_CHARS);
  return text.endsWith('…') ? `${text} (whole: \`reelflow status\`)` : text;
}

/** Table cells must not carry a pipe or a newline. */
const cell = (text: string) => printable(text).replace(/\|/g, '\\|');

/** " · tenant acme (batch)" where tenants apply (docs/tenants.md). */
const tenantText = (s: PipelineStatus) =>
  s.tenant === undefined ? '' : ` · tenant ${s.tenant} (${s.priority})${slotText(s)}`;

/** " · holds slot 3 of 5" or " · queued for a slot (limit 5)", where a concurrency limit applies. */
function slotText(s: PipelineStatus): string {
  const slot = s.slot;
  if (slot?.state === 'held') return ` · holds slot ${slot.slot} of ${slot.limit}`;
  return slot?.state === 'queued' ? ` · queued for a slot (limit ${slot.limit})` : '';
}

export function renderDetails(s: PipelineStatus): string {
  const rows = STAGES.filter((name) => s.stages[name].state !== 'skipped').map((name) => {
    const st = s.stages[name];
    // "2 of 3": the UI's markdown turns "2/3" into a fraction glyph.
    const progress = st.progress ? `${st.progress.done} of ${st.progress.total}` : '';
    const shown = s.waiting?.stage === name ? 'waiting-operator' : stateText(st);
    const state = st.detail ? `${shown}: ${st.detail}` : shown;
    return `| ${name} | ${cell(state)} | ${cell(taskIds(s, name))} | ${progress} | ${elapsed(st.startedAt, st.endedAt)} |`;
  });
  // Waiting: the command and the step, the whole table, then why (cut short): the panel has a fixed height.
  const head = s.waiting
    ? [
        `\`reelflow resolve ${s.pipelineId} --task-id <id> | --resubmit | --abandon\``,
        `**Waiting for an operator** on ${s.waiting.step}${slotText(s)}`,
      ]
    : [`**${s.state}** · stage ${s.stage}${tenantText(s)}`];
  const lines = [
    ...head,
    '',
    '| stage | state | vendor tasks | progress | elapsed |',
    '|---|---|---|---|---|',
    ...rows,
  ];
  const tail = [
    ...(s.waiting ? [`Why: ${waitReason(s.waiting.reason)}`] : []),
    ...(s.error ? [`Error: ${printable(s.error, 600)}`] : []),
  ];
  // One paragraph (no blank line between): 12 lines at most with all four stages.
  if (tail.length) lines.push('', ...tail);
  return lines.join('\n');
}
