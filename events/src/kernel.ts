// The browser-safe kernel: what the web may import (`@pass/events/kernel`). Nothing here, nor
// anything it imports, touches Node; the ESLint config holds the web to this entry.
export * from './metadata';
export * from './domain-events';
export * from './upcasters';
export * from './stream-events';
export * from './constants';
export * from './countries';
export * from './rules/index';
export * from './api';
export * from './pages';
export * from './page-settings';
export * from './commands';
export * from './sessions';
export * from './event-store/port';
