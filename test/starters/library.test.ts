/**
 * The library entry point: what it exports, and that importing it (to start pipelines
 * from a backend) loads neither the worker SDK nor the activities.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import * as reelflow from '../../src';
import { ROOT } from '../support/cli';

test('the documented API is exported', () => {
  for (const name of [
    'startPipeline',
    'runPipeline',
    'followPipeline',
    'pipelineStatus',
    'pipelineResult',
    'cancelPipeline',
    'resolveCreate',
    'listPipelines',
    'connectClient',
    'loadDefinitionFile',
    'parseDefinition',
    'DefinitionError',
    'statusQuery',
    'resolveCreateUpdate',
    'DEFAULT_TASK_QUEUE',
    'createReelflowWorkers',
    'startWorkerProcess',
    'createActivities',
  ]) {
    expect(reelflow).toHaveProperty(name);
  }
  expect(reelflow.PIPELINE_WORKFLOW_TYPE).toBe('videoPipeline');
});

test('importing the library does not load @temporalio/worker or the activities', () => {
  // A plain node process with a tiny swc require hook for .ts (no jest module registry).
  const script = `
    const { transformSync } = require('@swc/core');
    const fs = require('node:fs');
    require.extensions['.ts'] = (m, file) => {
      const { code } = transformSync(fs.readFileSync(file, 'utf8'), {
        filename: file, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' },
      });
      m._compile(code, file);
    };
    const lib = require(${JSON.stringify(path.join(ROOT, 'src/index.ts'))});
    const loaded = Object.keys(require.cache);
    console.log(JSON.stringify({
      worker: loaded.some((f) => f.includes('@temporalio/worker')),
      activities: loaded.some((f) => f.includes('/src/activities/')),
      client: loaded.some((f) => f.includes('@temporalio/client')),
      exports: typeof lib.startPipeline,
    }));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ worker: false, activities: false, client: true, exports: 'function' });
});
