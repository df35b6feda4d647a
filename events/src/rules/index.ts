// Every rule and derived number of the spec, one module per capability (docs/architecture.md,
// "Rules owned once", says who calls each).
export * from './free-points';
export * from './passes';
export * from './chat';
export * from './members';
export * from './payments';
export * from './site';
export * from './errors';
export * from './forms';
export * from './links';
export * from './account-access';
export * from './member-state';
export * from './point-history';
export * from './admin';
export * from './progress';
// What an erased member's fields read as, and the event that erases them (a replay keeps them erased).
export { ERASED_VALUE, ERASURE_EVENT } from './personal-data';
