// Test support other packages' suites use: spawning the product's processes, and an HTTP + socket client.
export * from './spawn-process';
export * from './client';
export * from './distributed';
export * from './metrics';
