export { createCommandApi, type CommandApi, type CommandApiAdapters, type CommandApiConfig, type CommandApiDeps } from './command-api';
export { createRedisSessionVerifier } from './sessions/redis-session-verifier';
export { commandApiRedisKeys } from './redis-keys';
export type { PaymentProvider, ProviderOrder, VerifiedCapture } from './payments/provider/port';
export { PaymentProviderError } from './payments/provider/port';
export { SimulatedPaymentProvider } from './payments/provider/simulated-provider';
export { PayPalPaymentProvider, type PayPalConfig } from './payments/provider/paypal-provider';
export { createPaymentProvider, type PaymentsConfig } from './payments/provider/factory';
export { captureAndCredit, creditCapturedOrder, reverseCapturedPurchase, type BuyPointsDeps } from './payments/buy-points';
export {
  BullMqImageJobs,
  DEFAULT_IMAGE_JOB_RETRIES,
  ImageJobFailures,
  InProcessImageJobs,
  startImageWorker,
  type ImageJobOutcome,
  type ImageJobRetries,
  type ImageJobs,
  type ImageWorker,
} from './uploads/image-jobs';
export { PassReservationReconciler } from './passes/reconciler';
export { storeSyncedClock, systemClock, type Clock, type StoreSyncedClock } from './kernel/clock';
export { FileAggregateSnapshots, RedisAggregateSnapshots, type AggregateSnapshotStore } from './kernel/aggregate-snapshots';
export { MemorySessionStore, type SessionStore, type SessionRecord } from './sessions/session-store';
export { FileSessionStore } from './sessions/file-session-store';
export { RedisSessionStore } from './sessions/redis-session-store';
export { ActionThrottle, DEFAULT_ACTION_LIMITS, DEFAULT_LOGIN_LIMITS, LoginThrottle, type ActionLimits, type LoginLimits } from './sessions/rate-limiter';
export { createHttpCommandGateway, type HttpCommandGatewayOptions } from './gateway/http';
export { AdViewTickets } from './free-points/ad-view-tickets';
export { keepWebhookRawBody } from './payments/raw-body';
export { CommandHandler } from './kernel/command-handler';
export { MemoryMailer, OutboxMailer, SmtpMailer, type Mail, type Mailer } from './mail/mailer';
export { resetMail } from './mail/reset-mail';
