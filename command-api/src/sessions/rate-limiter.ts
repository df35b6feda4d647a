/**
 * The throttles' entry: login (`login-throttle.ts`) and member actions (`action-throttle.ts`),
 * both on the one counter implementation in `limiter-store.ts` (rate-limiter-flexible, memory
 * or Redis), with their numbers in `limits.ts`.
 */
export { ActionThrottle, tooManyActionsMessage, type ThrottledAction } from './action-throttle';
export { LoginThrottle, tooManyAdminAttemptsMessage, tooManyAttemptsMessage } from './login-throttle';
export { DEFAULT_ACTION_LIMITS, DEFAULT_LOGIN_LIMITS, type ActionLimits, type LoginLimits, type RateLimit } from './limits';
