import { useEffect, useMemo } from 'react';
import { POINTS_PER_PASS, PRODUCT_NAME, contentPath, noPassReason } from '@pass/events/kernel';
import { shallowEqual } from 'react-redux';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { amountFormSchema } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { formatNumber } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { userActions } from '../../lib/state/session';
import type { PostFormState } from './post-form';
import { selectAmountBounds } from './selectors';

interface AmountForm {
  passes: number | '';
}

function isPostFormState(value: unknown): value is PostFormState {
  return Boolean(value && typeof value === 'object' && 'fields' in value && 'image' in value);
}

type Bounds = ReturnType<typeof selectAmountBounds>;

/**
 * The passes field, read against the bounds as they are now: it opens at 1 only once a pass can
 * be had (empty otherwise), and a message already shown is checked again when the bounds change.
 */
function useAmountForm(bounds: Bounds) {
  const resolver = useMemo(
    () => zodResolver(amountFormSchema(bounds.available, bounds.points)),
    [bounds.available, bounds.points],
  );
  const form = useForm<AmountForm>({
    resolver: resolver as never,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { passes: '' },
  });
  const { getFieldState, setValue, trigger, formState } = form;
  const canClaim = bounds.settled && bounds.max > 0;
  useEffect(() => {
    if (!getFieldState('passes').isDirty) setValue('passes', canClaim ? 1 : '');
  }, [canClaim, getFieldState, setValue]);
  const { isSubmitted } = formState;
  useEffect(() => {
    if (isSubmitted) void trigger('passes');
  }, [resolver, isSubmitted, trigger]);
  return { ...form, canClaim };
}

/** Reachable only from the post form, which passes its data in navigation state (docs/product.md §2). */
export default function AmountPage() {
  useTitle(`How many passes? · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const { state } = useLocation();
  const bounds = useAppSelector(selectAmountBounds, shallowEqual);
  const { pending, claimError } = useAppSelector((state) => state.user);
  const { register, handleSubmit, formState, canClaim } = useAmountForm(bounds);

  if (!isPostFormState(state)) return <Navigate to={contentPath('post')} replace />;

  const onSubmit = (values: AmountForm) =>
    dispatch(userActions.claimRequested({ ...state.fields, image: state.image, passes: Number(values.passes) }));
  // Said before anything is typed: no Confirm that can only fail.
  const reason = bounds.settled ? noPassReason(bounds.available, bounds.points) : null;

  return (
    <section className="panel narrow" aria-labelledby="amount-title">
      <h1 id="amount-title">How many passes?</h1>
      <dl className="stats small">
        <div>
          <dt>Available passes</dt>
          <dd>{formatNumber(bounds.available)}</dd>
        </div>
        <div>
          <dt>Your points</dt>
          <dd>{formatNumber(bounds.points)}</dd>
        </div>
      </dl>
      {claimError && <p className="form-error" role="alert">{claimError}</p>}
      <form noValidate onSubmit={handleSubmit(onSubmit)}>
        <Field label="Passes" error={formState.errors.passes?.message}
          hint={reason ?? (canClaim ? `Between ${bounds.min} and ${formatNumber(bounds.max)}` : undefined)}>
          <input type="number" inputMode="numeric" min={bounds.min} max={bounds.max} step={1} disabled={!canClaim} {...register('passes')} />
        </Field>
        {bounds.settled && bounds.points < POINTS_PER_PASS && (
          <p><Link to={contentPath('participants')}>Get free points in the participants section</Link></p>
        )}
        <button type="submit" className="button primary" disabled={pending || !canClaim}>Confirm</button>
      </form>
    </section>
  );
}
