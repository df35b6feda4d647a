import type { Logger } from 'pino';
import type { PaymentProvider } from './port';
import { PayPalPaymentProvider, type PayPalConfig } from './paypal-provider';
import { SimulatedPaymentProvider } from './simulated-provider';

/** The payment settings as infra parses them (PAYMENTS_PROVIDER, PAYPAL_*). */
export interface PaymentsConfig {
  provider: 'simulated' | 'paypal';
  paypal?: PayPalConfig | undefined;
  /** Defaults to process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
}

/**
 * The provider the settings ask for. The simulated provider moves no money, so it is refused in
 * production here as well as in infra's settings: a misconfigured host must not sell points for free.
 */
export function createPaymentProvider(config: PaymentsConfig, logger: Logger): PaymentProvider {
  const nodeEnv = config.nodeEnv ?? process.env.NODE_ENV;
  if (config.provider === 'simulated') {
    if (nodeEnv === 'production') {
      throw new Error('PAYMENTS_PROVIDER=simulated (test mode) is refused when NODE_ENV=production; set PAYMENTS_PROVIDER=paypal');
    }
    logger.warn('payments: simulated provider, TEST MODE (no real payments)');
    return new SimulatedPaymentProvider();
  }
  if (!config.paypal) throw new Error('PAYMENTS_PROVIDER=paypal needs PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET');
  if (nodeEnv === 'production' && config.paypal.environment !== 'production') {
    // Allowed (a staging host may run in production mode), but worth a line in the logs.
    logger.warn('payments: PayPal sandbox while NODE_ENV=production (no real payments)');
  }
  if (!config.paypal.webhookId) logger.warn('payments: PAYPAL_WEBHOOK_ID is not set; refund and reversal webhooks will be refused');
  logger.info({ environment: config.paypal.environment }, 'payments: PayPal');
  return new PayPalPaymentProvider(config.paypal, logger.child({ component: 'paypal' }));
}
