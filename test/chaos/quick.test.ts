/**
 * The quick chaos run inside `npm test`: 20 pipelines with every stage, the emulator's
 * fault mix on, two worker PROCESSES (dist/workers/main.js) of which one is
 * SIGKILLed mid-run and replaced, and an operator answering ambiguous paid creates;
 * one tenant's ledger terminated mid-run, forged messages sent to another's, and one
 * pipeline started under the workflow id of one that has ended.
 * Every invariant of `npm run chaos` must hold. The dev server is jest's shared one
 * (restarting it would disturb the other test files), so no server restart here.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { renderMarkdown } from '../../tools/bench/chaos-report';
import { DIST_MISSING_HINT, distPaths, runChaos } from '../../tools/bench/chaos-run';

test('quick chaos: 20 pipelines under faults, a worker SIGKILLed; every invariant holds', async () => {
  const missing = Object.values(distPaths()).filter((f) => !existsSync(f));
  if (missing.length) throw new Error(`${missing.join(', ')} missing: ${DIST_MISSING_HINT}`);
  const lines: string[] = [];
  const report = await runChaos({
    pipelines: 20,
    seed: 7,
    kills: 1,
    restartServer: false,
    workers: 2,
    temporal: { address: process.env.TEMPORAL_ADDRESS!, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' },
    timeoutMs: 200_000,
    // Logs, archive and the like go with the rest of this test run's files.
    ...(process.env.REELFLOW_TEST_DIR
      ? { workDir: mkdtempSync(path.join(process.env.REELFLOW_TEST_DIR, 'chaos-quick-')) }
      : {}),
    log: (line) => lines.push(line),
  });
  const summary = `${renderMarkdown(report)}\n--- run log ---\n${lines.join('\n')}`;
  // One assertion per invariant, with its first violations in the message.
  for (const inv of report.invariants) {
    expect({
      invariant: inv.id,
      violations: inv.violations,
      examples: inv.examples,
      report: inv.pass ? '' : summary,
    }).toEqual({
      invariant: inv.id,
      violations: 0,
      examples: [],
      report: '',
    });
  }
  expect(report.invariants.map((i) => i.id)).toEqual(
    expect.arrayContaining([
      'concurrency-limit',
      'ledger-exact',
      'ledger-budget',
      'ledger-refused',
      'ledger-reuse',
      'ledger-terminate',
      'replays',
    ]),
  );
  // The moves against the ledgers were made: a terminate, all five forgeries, a workflow id run twice.
  expect(report.ledger?.terminated?.chains.length).toBeGreaterThan(0);
  expect(report.ledger?.forged.map((f) => f.kind).sort()).toEqual([
    'foreign-chain',
    'negative-count',
    'replayed-settle',
    'unknown-chain',
    'unknown-settle',
  ]);
  expect(report.ledger?.reuse?.second).toMatch(/^p018 [0-9a-f-]{36}$/);
  expect(report.pipelines.byState).toEqual({ completed: 19, failed: 1 });
  expect(report.kills).toHaveLength(1);
  expect(report.unexpectedWorkerExits).toEqual([]);
  expect(report.faults.total).toBeGreaterThan(0);
}, 300_000);
