/**
 * `reelflow/worker`: the worker side of the package, for a process of your own.
 *
 *   import { startWorkerProcess } from 'reelflow/worker';
 *   const worker = await startWorkerProcess(); // configured by the environment, like `reelflow worker`
 *   await worker.done;
 *
 * or, with your own connection and dependencies, createReelflowWorkers + createActivities.
 * The package ships the plain workflow bundle prebuilt (dist/workflow-bundle.js); other
 * variants (tracing, codec) are bundled at the first start that needs them.
 */
export {
  createReelflowWorkers,
  type ReelflowWorkersOptions,
  type ReelflowWorkers,
  type ReelflowWorker,
} from './worker';
export { startWorkerProcess, activityDeps, type WorkerProcessOptions, type RunningWorkerProcess } from './main';
export { loadWorkerConfig, WorkerConfigError, type WorkerConfig } from './config';
export { buildWorkflowBundle, isBundleFresh, defaultBundlePath, defaultWorkflowsPath } from './bundle';
export { runDoctor, checksJson, formatChecks, type CheckResult, type DoctorInput } from './doctor';
export { createActivities, type ActivityDeps, type ReelflowActivities } from '../activities';
