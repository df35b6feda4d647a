// Test support other packages' suites use: the command side served in-process, and sample images.
export * from './harness';
export * from './images';
