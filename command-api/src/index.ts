export { createCommandApi, type CommandApi, type CommandApiConfig, type CommandApiDeps } from './command-api';
export type { PaymentVerifier, VerifiedCapture } from './payments/port';
export { PaymentProviderError } from './payments/port';
export { SimulatedPaymentProvider } from './payments/simulated-provider';
export { creditCapturedOrder, reverseCapturedPurchase, type BuyPointsDeps } from './payments/buy-points';
export { createImageJobs, BullMqImageJobs, InProcessImageJobs, type ImageJobs } from './uploads/image-jobs';
export { PassReservationReconciler } from './passes/reconciler';
export type { SessionStore, SessionRecord } from './sessions/session-store';
export { createHttpCommandGateway, type HttpCommandGatewayOptions } from './http-gateway';
