// What other packages' tests share from the kernel's test support: the servers a suite needs
// (found or reported as skipped) and polling until an assertion holds.
export * from './services';
export * from './eventually';
