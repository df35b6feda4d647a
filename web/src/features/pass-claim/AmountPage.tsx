import { useMemo } from 'react';
import { POINTS_PER_PASS, PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { shallowEqual } from 'react-redux';
import { Navigate, useLocation } from 'react-router-dom';
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
  passes: number;
}

function isPostFormState(value: unknown): value is PostFormState {
  return Boolean(value && typeof value === 'object' && 'fields' in value && 'image' in value);
}

/** Reachable only from the post form, which passes its data in navigation state (docs/product.md §2). */
export default function AmountPage() {
  useTitle(`How many passes? · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const { state } = useLocation();
  const bounds = useAppSelector(selectAmountBounds, shallowEqual);
  const { pending, claimError } = useAppSelector((state) => state.user);
  const resolver = useMemo(
    () => zodResolver(amountFormSchema(bounds.available, bounds.points)),
    [bounds.available, bounds.points],
  );
  const { register, handleSubmit, formState } = useForm<AmountForm>({
    resolver: resolver as never,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { passes: 1 },
  });

  if (!isPostFormState(state)) return <Navigate to={contentPath('post')} replace />;

  const onSubmit = (values: AmountForm) =>
    dispatch(userActions.claimRequested({ ...state.fields, image: state.image, passes: Number(values.passes) }));

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
          hint={bounds.points < POINTS_PER_PASS ? 'Get free points in the participants section' : `Between ${bounds.min} and ${formatNumber(bounds.max)}`}>
          <input type="number" inputMode="numeric" min={bounds.min} max={bounds.max} step={1} {...register('passes')} />
        </Field>
        <button type="submit" className="button primary" disabled={pending}>Confirm</button>
      </form>
    </section>
  );
}
