import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { purchaseOptionFor } from '@pass/events/kernel';
import type { PaymentsConfigView } from '../../lib/http';
import { CHECKOUT_TEXTS, CheckoutPanel, type CheckoutPanelProps } from './CheckoutPanel';

afterEach(cleanup);

const simulated: PaymentsConfigView = { provider: 'simulated', testMode: true, clientId: null, currency: 'USD' };
const sandbox: PaymentsConfigView = { provider: 'paypal', testMode: true, clientId: 'sb-client', currency: 'USD' };
const live: PaymentsConfigView = { provider: 'paypal', testMode: false, clientId: 'live-client', currency: 'USD' };

function renderPanel(props: Partial<CheckoutPanelProps> = {}) {
  const handlers = { onClose: vi.fn(), onTestPay: vi.fn() };
  render(
    <CheckoutPanel option={purchaseOptionFor(10)!} config={simulated} configFailed={false} paying={false} error={null} {...handlers} {...props} />,
  );
  return handlers;
}

describe('checkout panel', () => {
  it('test mode: labelled, with the test-mode pay button; close X and Escape close it', () => {
    const { onClose, onTestPay } = renderPanel();
    expect(screen.getByRole('heading', { name: '$10 — 1,000 points' })).toBeTruthy();
    expect(screen.getByRole('note').textContent).toBe(CHECKOUT_TEXTS.testMode);
    fireEvent.click(screen.getByRole('button', { name: 'Pay $10 (test mode, no real payment)' }));
    expect(onTestPay).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'Close checkout' }));
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('a failed payment shows a friendly message in the panel', () => {
    renderPanel({ error: 'The payment provider did not answer in time, please try again' });
    expect(screen.getByRole('alert').textContent).toBe('The payment provider did not answer in time, please try again');
  });

  it('while paying: the pay button is disabled and the panel says so', () => {
    renderPanel({ paying: true });
    expect((screen.getByRole('button', { name: /test mode/ }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByRole('status').textContent).toBe(CHECKOUT_TEXTS.paying);
  });

  it('PayPal: the provider buttons, no test-mode button; the sandbox is labelled, live is not', () => {
    renderPanel({ config: sandbox, children: <div data-testid="paypal-buttons" /> });
    expect(screen.getByTestId('paypal-buttons')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /test mode/ })).toBeNull();
    expect(screen.getByRole('note').textContent).toBe(CHECKOUT_TEXTS.sandbox);
    cleanup();
    renderPanel({ config: live });
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('settings loading, then failed to load: no pay button, a visible message', () => {
    renderPanel({ config: null });
    expect(screen.getByText(CHECKOUT_TEXTS.loading)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /test mode/ })).toBeNull();
    cleanup();
    renderPanel({ config: null, configFailed: true });
    expect(screen.getByRole('alert').textContent).toBe(CHECKOUT_TEXTS.configFailed);
  });
});
