/**
 * PayPal's buttons, loaded on demand (React.lazy from the points page), so neither this module
 * nor @paypal/react-paypal-js is part of what `/` downloads.
 */
import { PayPalButtons, PayPalScriptProvider, usePayPalScriptReducer } from '@paypal/react-paypal-js';
import { CURRENCY } from '@pass/events/kernel';
import { useAppDispatch } from '../../lib/store-hooks';
import { PAYPAL_TEXTS } from './paypal-texts';
import { PAYMENT_FAILED, providerButtonFailed, providerOrderApproved, providerOrderRequested } from './actions';

interface Props {
  clientId: string;
  amountUsd: number;
  disabled: boolean;
}

function Buttons({ amountUsd, disabled }: Omit<Props, 'clientId'>) {
  // The provider itself logs "Failed to load the PayPal JS SDK script." (docs/product.md §8) when the script fails.
  const [{ isPending, isRejected }] = usePayPalScriptReducer();
  const dispatch = useAppDispatch();
  if (isRejected) {
    return (
      <p className="form-error" role="alert">
        {PAYPAL_TEXTS.unavailable}
      </p>
    );
  }
  return (
    <>
      {isPending && <p className="muted">{PAYPAL_TEXTS.loading}</p>}
      <PayPalButtons
        style={{ layout: 'vertical' }}
        disabled={disabled}
        forceReRender={[amountUsd]}
        // The server creates, captures and credits; the sagas settle these promises (and log and re-throw on errors).
        createOrder={() => new Promise<string>((resolve, reject) => void dispatch(providerOrderRequested({ amountUsd, resolve, reject })))}
        onApprove={(data) =>
          new Promise<void>((resolve, reject) => void dispatch(providerOrderApproved({ orderId: data.orderID, amountUsd, resolve, reject })))
        }
        onError={(error) => void dispatch(providerButtonFailed({ message: PAYMENT_FAILED, error }))}
      />
    </>
  );
}

export default function PayPalCheckout({ clientId, amountUsd, disabled }: Props) {
  return (
    <PayPalScriptProvider options={{ clientId, currency: CURRENCY, intent: 'capture' }}>
      <Buttons amountUsd={amountUsd} disabled={disabled} />
    </PayPalScriptProvider>
  );
}
