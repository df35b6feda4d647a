import { useEffect, useState } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { joinFormSchema, type JoinForm } from '@pass/events/kernel';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { isSessionEndState, joinReasonText, type JoinRedirectState } from '../../lib/join-reason';
import { userActions } from '../../lib/state/session';
import { selectIsRegistered } from '../../lib/state/session-selectors';

/**
 * Why the guest is here, in one line: their session just ended (the navigation says so, else the
 * store, when a member-only page's own redirect came first), or a member-only page sent them
 * (components/JoinRedirect.tsx). The store's reason is taken once, so a later visit does not repeat it.
 */
function useJoinReason(endedReason: JoinRedirectState['joinReason'] | ''): string | null {
  const dispatch = useAppDispatch();
  const navigation = useLocation().state;
  const [ended] = useState(endedReason);
  useEffect(() => {
    if (endedReason) dispatch(userActions.endedReasonShown());
  }, [dispatch, endedReason]);
  if (isSessionEndState(navigation)) return joinReasonText(navigation);
  return ended ? joinReasonText({ joinReason: ended }) : joinReasonText(navigation);
}

/** Sign in or register (docs/product.md §2 /content/join). */
export default function JoinPage() {
  useTitle(`Join · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const registered = useAppSelector(selectIsRegistered);
  const { registerError, pending, endedReason } = useAppSelector((state) => state.user);
  const reason = useJoinReason(endedReason);
  // After a registration from this page the saga navigates (to /content/check); the guard is for arrivals.
  const [submitted, setSubmitted] = useState(false);
  const { register, handleSubmit, formState } = useForm<JoinForm>({
    resolver: zodResolver(joinFormSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { email: '', password: '' },
  });

  if (registered && !submitted) return <Navigate to={contentPath('participants')} replace />;

  return (
    <section className="panel narrow" aria-labelledby="join-title">
      <h1 id="join-title">Join {PRODUCT_NAME}</h1>
      {reason && <p className="notice" role="status">{reason}</p>}
      <p className="muted">New here? You're registered with your first sign-in. Already a member? Sign in with the same details.</p>
      {registerError && <p className="form-error" role="alert">{registerError}</p>}
      <form noValidate onSubmit={handleSubmit((values) => {
        setSubmitted(true);
        dispatch(userActions.registerRequested(values));
      })}>
        <Field label="Email" error={formState.errors.email?.message}>
          <input type="email" autoComplete="email" {...register('email')} />
        </Field>
        <Field label="Password" error={formState.errors.password?.message}>
          <input type="password" autoComplete="current-password" {...register('password')} />
        </Field>
        <button type="submit" className="button primary" disabled={pending}>Join</button>
      </form>
      {/* To the page whose e-mail form asks for a reset link (features/password-reset). */}
      <p className="form-aside"><Link to={contentPath('reset-password')}>Forgot your password?</Link></p>
    </section>
  );
}
