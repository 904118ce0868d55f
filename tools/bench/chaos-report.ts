/** The chaos report as Markdown, and both files written to reports/chaos-<ISO>.{json,md}. */
import { writeReportFiles } from './report-files';
import type { ChaosReport } from './chaos-types';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** "a 1, b 2" */
const counts = (byKey: Record<string, number>) =>
  Object.entries(byKey)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function invariantLines(r: ChaosReport): string[] {
  const lines = ['## Invariants', '', '| invariant | result | violations | checked |', '|---|---|---:|---:|'];
  for (const i of r.invariants)
    lines.push(`| ${i.title} | ${i.pass ? 'pass' : '**FAIL**'} | ${i.violations} | ${i.checked} |`);
  lines.push('');
  for (const i of r.invariants) {
    lines.push(`- **${i.id}**: ${i.definition}.`);
    if (i.breakdown) lines.push(`  Counts: ${counts(i.breakdown)}.`);
    for (const e of i.examples) lines.push(`  - ${e}`);
  }
  lines.push('');
  return lines;
}

function pipelineLines(r: ChaosReport): string[] {
  const p = r.pipelines;
  return [
    '## Pipelines',
    '',
    `Started ${p.started}; ended: ${counts(p.byState)} ` +
      `(${p.expectedFailures} built to fail). Arrivals: ${p.arrivals.atOnce} started at once, the rest ` +
      `over ${s(p.arrivals.overMs)}. Time from a pipeline's start to its terminal state: ` +
      `p50 ${s(p.durationMs.p50)}, p95 ${s(p.durationMs.p95)}, max ${s(p.durationMs.max)}.`,
    `Vendor records created: ${counts(p.vendorTasks)}.`,
    '',
  ];
}

function faultLines(r: ChaosReport): string[] {
  const lines = [
    '## Faults injected',
    '',
    `${r.faults.total} faults over ${r.vendorRequests} vendor requests; 429 bursts: ` +
      `${
        Object.entries(r.faults.bursts)
          .map(([e, b]) => `${e} ${b.size} in a row after ${b.after} calls`)
          .join(', ') || 'none'
      }; ` +
      `${r.faults.pipelinesHit} of ${r.options.pipelines} pipelines tied to at least one injected fault (a lower bound: a fault ` +
      `answered before a create's handler ran carries no id to tie it to a pipeline).`,
    '',
    '| kind | count |',
    '|---|---:|',
  ];
  for (const [k, v] of Object.entries(r.faults.injectedByKind).sort()) lines.push(`| ${k} | ${v} |`);
  lines.push('', 'By endpoint:', '', '| endpoint | faults |', '|---|---|');
  for (const [e, kinds] of Object.entries(r.faults.injectedByEndpoint).sort())
    lines.push(`| ${e} | ${counts(kinds)} |`);
  lines.push('');
  return lines;
}

function callbackAndLimitLines(r: ChaosReport): string[] {
  const cb = r.callbacks;
  const windows = Object.entries(r.getAssetBusiestWindow);
  return [
    `Callbacks: ${cb.sent} sent, ${cb.delivered} delivered, ${cb.failed} failed, ${cb.dropped} dropped, ` +
      `${cb.duplicated} duplicated, ${cb.delayed} delayed. 429 answers by endpoint (injected and natural): ` +
      `${counts(r.rateLimited429) || 'none'}.`,
    '',
    `Vendor limits: the vendor's own 429s (not injected): ${
      counts(r.natural429) || '0'
    }. Busiest 1-s window of GetAsset at the vendor (sliding, per access token; limit 10): ${
      windows.map(([k, w]) => `${k} ${w.count}`).join(', ') || 'no GetAsset'
    }.`,
    '',
  ];
}

function killAndRestartLines(r: ChaosReport): string[] {
  const o = r.options;
  const lines = ['## Kills, restarts, operator', '', `Worker SIGKILLs: ${r.kills.length} (asked for ${o.kills}).`];
  for (const k of r.kills)
    lines.push(
      `- t=${s(k.atMs)}: ${k.worker} (pid ${k.pid}) killed with ${k.inFlight} pipelines in flight; ${k.replacement} started`,
    );
  if (r.unexpectedWorkerExits.length) {
    lines.push(`Workers that exited by themselves (replaced): ${r.unexpectedWorkerExits.length}.`);
    for (const e of r.unexpectedWorkerExits)
      lines.push(`- t=${s(e.atMs)}: ${e.worker} code ${e.code} signal ${e.signal}`);
  }
  lines.push(
    '',
    `Temporal server restarts (same database): ${r.restarts.length}` +
      `${o.ownServer ? ` (${o.temporalServer ?? 'dev server'})` : ' (shared server: restart off)'}.`,
  );
  for (const x of r.restarts) lines.push(`- t=${s(x.atMs)}: down ${s(x.downMs)}, ${x.inFlight} pipelines in flight`);
  lines.push('');
  return lines;
}

function ledgerLines(r: ChaosReport): string[] {
  const l = r.ledger;
  if (!l) return [];
  const t = l.terminated;
  const kinds = l.forged.map((f) => f.kind).join(', ');
  return [
    `Ledger moves: ${t ? `terminated ${t.ledgerId} (run ${t.runId}) at t=${s(t.atMs)}, holding ${t.chains.length} reservation(s)` : 'no ledger terminated'}; ` +
      `${l.forged.length ? `${l.forged.length} forged messages to ${l.forged[0].ledgerId} at t=${s(l.forged[0].atMs)} (${kinds})` : 'no forged message sent'}; ` +
      `${l.reuse ? `workflow id ${l.reuse.workflowId} run by ${l.reuse.first}, then ${l.reuse.second}` : 'no workflow id reused'}.`,
    '',
  ];
}

function operatorLines(r: ChaosReport): string[] {
  const lines = [
    `Operator decisions: ${r.operator.decisions.taskId} resolved with the task id found at the vendor, ` +
      `${r.operator.decisions.resubmit} resubmit (no task found); ${r.operator.failedAttempts} attempts not taken (retried).`,
  ];
  for (const d of r.operator.log.slice(0, 30)) {
    lines.push(
      `- t=${s(d.atMs)}: ${d.workflowId} ${d.step}#${d.attempt} → ${d.decision === 'taskId' ? `task ${d.taskId}` : 'resubmit'}`,
    );
  }
  if (r.operator.log.length > 30) lines.push(`- … ${r.operator.log.length - 30} more in the JSON report`);
  lines.push('');
  return lines;
}

export function renderMarkdown(r: ChaosReport): string {
  const o = r.options;
  return [
    `# reelflow chaos run — ${r.pass ? 'PASS' : 'FAIL'}`,
    '',
    `${r.startedAt} · ${o.pipelines} pipelines · seed ${o.seed} · ${o.workers} worker processes · ` +
      `${o.profiles} credential profile(s) · ambiguous creates: ${o.ambiguousPolicy} · ${r.machine.cpus} CPUs, Node ${r.machine.node} · run ${s(r.durationMs)}`,
    '',
    ...invariantLines(r),
    ...pipelineLines(r),
    ...faultLines(r),
    ...callbackAndLimitLines(r),
    ...killAndRestartLines(r),
    ...ledgerLines(r),
    ...operatorLines(r),
    `Logs, SQLite file and archive: ${r.workDir}`,
    '',
  ].join('\n');
}

export function writeReport(r: ChaosReport, dir: string): { json: string; md: string } {
  return writeReportFiles('chaos', r.startedAt, r, renderMarkdown(r), dir);
}
