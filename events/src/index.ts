// The server's kernel: the browser-safe kernel plus what needs Node (stream names hash e-mails).
// Event-store adapters are behind `@pass/events/store`; test support behind `@pass/events/test-support`.
export * from './kernel';
export * from './streams';
export * from './fast-lane';
