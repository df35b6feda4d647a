// Test support: the read side served in-process over a recorded day.
export * from './read-side';
