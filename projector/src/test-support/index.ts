// Test support other packages' suites and the benchmarks use: a recorded day of the site,
// appending domain events to a store, and a deterministic event generator.
export * from './recorded-events';
export * from './append';
export * from './generate-events';
