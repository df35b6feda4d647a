export * from './metadata';
export * from './domain-events';
export * from './upcasters';
export * from './streams';
export * from './constants';
export * from './rules';
export * from './event-store/port';
export * from './api';
