/** `@pass/events/redis`: what every Redis-using service shares. */
export * from './announcements';
export { redisConnectionOptions } from './connection';
