import { lazy, Suspense, useEffect, useState } from 'react';
import { PRODUCT_NAME, PURCHASE_OPTIONS, type PurchaseOption } from '@pass/events/kernel';
import { JoinRedirect } from '../../components/JoinRedirect';
import { LoadingOverlay } from '../../components/LoadingOverlay';
import { formatNumber } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { selectHasUserOrStored } from '../../lib/state/session-selectors';
import { CheckoutPanel } from './CheckoutPanel';
import { checkoutClosed, checkoutOpened, paymentsConfigRequested, testPurchaseRequested } from './actions';
import { PAYPAL_TEXTS } from './paypal-texts';

// PayPal's SDK wrapper loads only when the server says PayPal and a checkout opens.
const PayPalCheckout = lazy(() => import('./PayPalCheckout'));

/** Buy points (docs/product.md §2 /content/points): the purchase cards and the checkout panel. */
export default function PointsPage() {
  const dispatch = useAppDispatch();
  const allowed = useAppSelector(selectHasUserOrStored);
  const purchase = useAppSelector((state) => state.purchase);
  const [selected, setSelected] = useState<PurchaseOption | null>(null);
  useTitle(`Buy Points · ${PRODUCT_NAME}`);
  // Set while a captured purchase is being registered (docs/product.md §4 payment).
  const isLoading = useAppSelector((state) => state.loading.isLoading);
  useEffect(() => {
    if (allowed) dispatch(paymentsConfigRequested());
  }, [allowed, dispatch]);

  if (!allowed) return <JoinRedirect reason="points" />;
  const { config } = purchase;

  return (
    <section className="panel wide" aria-labelledby="points-title">
      {isLoading && <LoadingOverlay />}
      <h1 id="points-title">Buy Points</h1>
      <ul className="purchase-grid">
        {PURCHASE_OPTIONS.map((o) => (
          <li key={o.amountUsd} className="purchase-card">
            <p className="price">${formatNumber(o.amountUsd)}</p>
            <p className="points">{formatNumber(o.points)} points</p>
            <p className="muted">{o.description}</p>
            <button type="button" className="button primary" aria-label={`Buy ${formatNumber(o.points)} points for $${formatNumber(o.amountUsd)}`}
              onClick={() => {
                setSelected(o);
                dispatch(checkoutOpened({ amountUsd: o.amountUsd }));
              }}>
              Buy
            </button>
          </li>
        ))}
      </ul>
      {selected && (
        <CheckoutPanel option={selected} config={config} configFailed={purchase.configFailed} paying={purchase.paying} error={purchase.error}
          onClose={() => {
            setSelected(null);
            dispatch(checkoutClosed());
          }}
          onTestPay={() => dispatch(testPurchaseRequested({ amountUsd: selected.amountUsd }))}>
          {config?.provider === 'paypal' && config.clientId && (
            <Suspense fallback={<p className="muted">{PAYPAL_TEXTS.loading}</p>}>
              <PayPalCheckout clientId={config.clientId} amountUsd={selected.amountUsd} disabled={purchase.paying} />
            </Suspense>
          )}
        </CheckoutPanel>
      )}
    </section>
  );
}
