import type { ReactNode } from 'react';
import type { PurchaseOption } from '@pass/events/kernel';
import { CloseIcon } from '../../components/Icons';
import { Modal } from '../../components/Modal';
import { formatNumber } from '../../lib/format';
import type { PaymentsConfigView } from '../../lib/http';

export const CHECKOUT_TEXTS = {
  loading: 'Loading payment options…',
  configFailed: 'The payment options could not be loaded. Please close this window and try again.',
  testMode: 'Test mode: no real payment is made.',
  sandbox: 'Test mode (PayPal sandbox): no real payment is made.',
  paying: 'Completing your payment…',
} as const;

export interface CheckoutPanelProps {
  option: PurchaseOption;
  /** The server's payment settings; null while loading. */
  config: PaymentsConfigView | null;
  configFailed: boolean;
  paying: boolean;
  /** A friendly message after a failed payment. */
  error: string | null;
  onClose(): void;
  onTestPay(): void;
  /** The provider's own buttons (PayPal), loaded on demand by the page. */
  children?: ReactNode;
}

/** The checkout panel of a purchase card: close X, the provider's buttons, a visible error, the test-mode label. */
export function CheckoutPanel({ option, config, configFailed, paying, error, onClose, onTestPay, children }: CheckoutPanelProps) {
  return (
    <Modal className="checkout" labelledBy="checkout-title" onEscape={onClose}>
      <div className="checkout-inner">
        <header>
          <h2 id="checkout-title">${formatNumber(option.amountUsd)} — {formatNumber(option.points)} points</h2>
          <button type="button" className="icon-button" aria-label="Close checkout" onClick={onClose}>
            <CloseIcon />
          </button>
        </header>
        <p>{option.description}</p>
        {config?.testMode && (
          <p className="test-mode-label" role="note">
            {config.provider === 'paypal' ? CHECKOUT_TEXTS.sandbox : CHECKOUT_TEXTS.testMode}
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {configFailed && !config && (
          <p className="form-error" role="alert">
            {CHECKOUT_TEXTS.configFailed}
          </p>
        )}
        {!config && !configFailed && <p className="muted">{CHECKOUT_TEXTS.loading}</p>}
        {paying && (
          <p className="muted" role="status">
            {CHECKOUT_TEXTS.paying}
          </p>
        )}
        <div className="payment-buttons">{children}</div>
        {config?.provider === 'simulated' && (
          <button type="button" className="button test-mode" disabled={paying} onClick={onTestPay}>
            Pay ${formatNumber(option.amountUsd)} (test mode, no real payment)
          </button>
        )}
      </div>
    </Modal>
  );
}
