/** The chaos report as Markdown, and both files written to reports/chaos-<ISO>.{json,md}. */
import { writeReportFiles } from './report-files';
import type { ChaosReport } from './chaos-run';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function renderMarkdown(r: ChaosReport): string {
  const o = r.options;
  const lines: string[] = [];
  lines.push(`# reelflow chaos run — ${r.pass ? 'PASS' : 'FAIL'}`);
  lines.push('');
  lines.push(
    `${r.startedAt} · ${o.pipelines} pipelines · seed ${o.seed} · ${o.workers} worker processes · ` +
      `${o.profiles} credential profile(s) · ambiguous creates: ${o.ambiguousPolicy} · ${r.machine.cpus} CPUs, Node ${r.machine.node} · run ${s(r.durationMs)}`,
  );
  lines.push('');
  lines.push('## Invariants');
  lines.push('');
  lines.push('| invariant | result | violations | checked |');
  lines.push('|---|---|---:|---:|');
  for (const i of r.invariants)
    lines.push(`| ${i.title} | ${i.pass ? 'pass' : '**FAIL**'} | ${i.violations} | ${i.checked} |`);
  lines.push('');
  for (const i of r.invariants) {
    lines.push(`- **${i.id}**: ${i.definition}.`);
    if (i.breakdown)
      lines.push(
        `  Counts: ${Object.entries(i.breakdown)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`,
      );
    for (const e of i.examples) lines.push(`  - ${e}`);
  }
  lines.push('');
  lines.push('## Pipelines');
  lines.push('');
  lines.push(
    `Started ${r.pipelines.started}; ended: ${Object.entries(r.pipelines.byState)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} ` +
      `(${r.pipelines.expectedFailures} built to fail). Arrivals: ${r.pipelines.arrivals.atOnce} started at once, the rest ` +
      `over ${s(r.pipelines.arrivals.overMs)}. Time from a pipeline's start to its terminal state: ` +
      `p50 ${s(r.pipelines.durationMs.p50)}, p95 ${s(r.pipelines.durationMs.p95)}, max ${s(r.pipelines.durationMs.max)}.`,
  );
  lines.push(
    `Vendor records created: ${Object.entries(r.pipelines.vendorTasks)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  );
  lines.push('');
  lines.push('## Faults injected');
  lines.push('');
  lines.push(
    `${r.faults.total} faults over ${r.vendorRequests} vendor requests; 429 bursts: ` +
      `${
        Object.entries(r.faults.bursts)
          .map(([e, b]) => `${e} ${b.size} in a row after ${b.after} calls`)
          .join(', ') || 'none'
      }; ` +
      `${r.faults.pipelinesHit} of ${o.pipelines} pipelines tied to at least one injected fault (a lower bound: a fault ` +
      `answered before a create's handler ran carries no id to tie it to a pipeline).`,
  );
  lines.push('');
  lines.push('| kind | count |');
  lines.push('|---|---:|');
  for (const [k, v] of Object.entries(r.faults.injectedByKind).sort()) lines.push(`| ${k} | ${v} |`);
  lines.push('');
  lines.push('By endpoint:');
  lines.push('');
  lines.push('| endpoint | faults |');
  lines.push('|---|---|');
  for (const [e, kinds] of Object.entries(r.faults.injectedByEndpoint).sort()) {
    lines.push(
      `| ${e} | ${Object.entries(kinds)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} |`,
    );
  }
  lines.push('');
  const cb = r.callbacks;
  lines.push(
    `Callbacks: ${cb.sent} sent, ${cb.delivered} delivered, ${cb.failed} failed, ${cb.dropped} dropped, ` +
      `${cb.duplicated} duplicated, ${cb.delayed} delayed. 429 answers by endpoint (injected and natural): ` +
      `${
        Object.entries(r.rateLimited429)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }.`,
  );
  lines.push('');
  const natural = Object.entries(r.natural429);
  const windows = Object.entries(r.getAssetBusiestWindow);
  lines.push(
    `Vendor limits: the vendor's own 429s (not injected): ${
      natural.map(([k, v]) => `${k} ${v}`).join(', ') || '0'
    }. Busiest 1-s window of GetAsset at the vendor (sliding, per access token; limit 10): ${
      windows.map(([k, w]) => `${k} ${w.count}`).join(', ') || 'no GetAsset'
    }.`,
  );
  lines.push('');
  lines.push('## Kills, restarts, operator');
  lines.push('');
  lines.push(`Worker SIGKILLs: ${r.kills.length} (asked for ${o.kills}).`);
  for (const k of r.kills)
    lines.push(
      `- t=${s(k.atMs)}: ${k.worker} (pid ${k.pid}) killed with ${k.inFlight} pipelines in flight; ${k.replacement} started`,
    );
  if (r.unexpectedWorkerExits.length) {
    lines.push(`Workers that exited by themselves (replaced): ${r.unexpectedWorkerExits.length}.`);
    for (const e of r.unexpectedWorkerExits)
      lines.push(`- t=${s(e.atMs)}: ${e.worker} code ${e.code} signal ${e.signal}`);
  }
  lines.push('');
  lines.push(
    `Temporal server restarts (same database): ${r.restarts.length}` +
      `${o.ownServer ? ` (${o.temporalServer ?? 'dev server'})` : ' (shared server: restart off)'}.`,
  );
  for (const x of r.restarts) lines.push(`- t=${s(x.atMs)}: down ${s(x.downMs)}, ${x.inFlight} pipelines in flight`);
  lines.push('');
  lines.push(
    `Operator decisions: ${r.operator.decisions.taskId} resolved with the task id found at the vendor, ` +
      `${r.operator.decisions.resubmit} resubmit (no task found); ${r.operator.failedAttempts} attempts not taken (retried).`,
  );
  for (const d of r.operator.log.slice(0, 30)) {
    lines.push(
      `- t=${s(d.atMs)}: ${d.workflowId} ${d.step}#${d.attempt} → ${d.decision === 'taskId' ? `task ${d.taskId}` : 'resubmit'}`,
    );
  }
  if (r.operator.log.length > 30) lines.push(`- … ${r.operator.log.length - 30} more in the JSON report`);
  lines.push('');
  lines.push(`Logs, SQLite file and archive: ${r.workDir}`);
  lines.push('');
  return lines.join('\n');
}

export function writeReport(r: ChaosReport, dir: string): { json: string; md: string } {
  return writeReportFiles('chaos', r.startedAt, r, renderMarkdown(r), dir);
}
