import { useState } from 'react';
import { Navigate } from 'react-router-dom';
import { PRODUCT_NAME, PURCHASE_OPTIONS, type PurchaseOption } from '@pass/events/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectHasUserOrStored } from '../../app/selectors';
import { CloseIcon } from '../../components/Icons';
import { LoadingOverlay } from '../../components/LoadingOverlay';
import { useDialog, useTitle } from '../../lib/hooks';
import { formatNumber } from '../../lib/format';
import { testPurchaseRequested } from '../../features/passes/purchaseActions';

function Checkout({ option, onClose, onTestPay }: { option: PurchaseOption; onClose: () => void; onTestPay: () => void }) {
  const ref = useDialog<HTMLDivElement>(onClose);
  return (
    <div ref={ref} tabIndex={-1} className="checkout" role="dialog" aria-modal="true" aria-labelledby="checkout-title">
      <div className="checkout-inner">
        <header>
          <h2 id="checkout-title">${formatNumber(option.amountUsd)} — {formatNumber(option.points)} points</h2>
          <button type="button" className="icon-button" aria-label="Close checkout" onClick={onClose}>
            <CloseIcon />
          </button>
        </header>
        <p>{option.description}</p>
        {/* The payment provider's buttons mount here. */}
        <div id="payment-buttons" className="payment-buttons" />
        <button type="button" className="button test-mode" onClick={onTestPay}>
          Pay ${formatNumber(option.amountUsd)} (test mode, no real payment)
        </button>
      </div>
    </div>
  );
}

export default function PointsPage() {
  const dispatch = useAppDispatch();
  const allowed = useAppSelector(selectHasUserOrStored);
  const [selected, setSelected] = useState<PurchaseOption | null>(null);
  useTitle(`Buy Points · ${PRODUCT_NAME}`);
  // Set while a captured purchase is being registered (spec §4 payment).
  const isLoading = useAppSelector((s) => s.loading.isLoading);

  if (!allowed) return <Navigate to="/content/join" replace />;

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
              onClick={() => setSelected(o)}>
              Buy
            </button>
          </li>
        ))}
      </ul>
      {selected && (
        <Checkout option={selected} onClose={() => setSelected(null)}
          onTestPay={() => {
            dispatch(testPurchaseRequested({ amountUsd: selected.amountUsd }));
            setSelected(null);
          }} />
      )}
    </section>
  );
}
