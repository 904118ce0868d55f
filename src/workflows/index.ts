/** Every workflow the worker registers. Workflow code only: no I/O, no node built-ins. */
export { videoPipeline } from './video-pipeline';
export { reviewStage } from './stages/review';
export { assetsStage } from './stages/assets';
export { generationStage } from './stages/generation';
export { eraseStage } from './stages/erase';
