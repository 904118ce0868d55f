export * from './common';
export * from './generation';
export * from './erase';
export * from './assets';
export * from './review';
