/** The optimizer math every training stage shares (pure functions over typed arrays; no I/O). */
export * from './adamw';
export * from './grad-clip';
export * from './param-groups';
export * from './rng';
export * from './schedule';
