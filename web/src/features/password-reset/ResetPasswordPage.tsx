import { useEffect, useRef } from 'react';
import { Link, useLocation, useNavigate, type Location } from 'react-router-dom';
import { useForm, type FieldErrors, type FieldPath, type Resolver, type UseFormSetError } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { ACCOUNT_ACCESS_MESSAGES, PRODUCT_NAME, contentPath, passwordResetConfirmSchema, passwordResetSchema, type PasswordResetForm } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { useTitle } from '../../lib/hooks';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { passwordResetActions, selectLinkChecking, selectPasswordReset } from './slice';
import { RESET_TEXTS as T } from './texts';

interface NewPasswordForm {
  password: string;
  confirm: string;
}

const passwordRule = zodResolver(passwordResetConfirmSchema.pick({ password: true }));

/** The kernel's password rule (the join form's), and the repetition must match it. */
const newPasswordResolver: Resolver<NewPasswordForm> = async (values, context, options) => {
  const result = await passwordRule(values, context, options as never);
  const errors: FieldErrors<NewPasswordForm> = { ...(result.errors as FieldErrors<NewPasswordForm>) };
  if (values.confirm !== values.password) errors.confirm = { type: 'mismatch', message: T.mismatch };
  return Object.keys(errors).length > 0 ? { values: {}, errors } : { values, errors: {} };
};

/** A refusal the server tied to a field goes beside it, which takes the focus. */
function useServerError<F extends NewPasswordForm | PasswordResetForm>(setError: UseFormSetError<F>, name: FieldPath<F>, message: string | undefined) {
  useEffect(() => {
    if (message) setError(name, { type: 'server', message }, { shouldFocus: true });
  }, [message, name, setError]);
}

/** "Forgot your password?": the e-mail, then always the same confirmation. */
function ForgotPasswordForm() {
  const dispatch = useAppDispatch();
  const { pending, requested, errors } = useAppSelector(selectPasswordReset);
  const { register, handleSubmit, formState, setError } = useForm<PasswordResetForm>({
    resolver: zodResolver(passwordResetSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { email: '' },
  });
  useServerError(setError, 'email', errors.email);
  return (
    <section className="panel narrow" aria-labelledby="forgot-title">
      <h1 id="forgot-title">{T.forgotTitle}</h1>
      {requested ? (
        <p className="notice" role="status">{ACCOUNT_ACCESS_MESSAGES.resetRequested}</p>
      ) : (
        <>
          <p className="muted">{T.forgotText}</p>
          {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
          <form noValidate onSubmit={handleSubmit((v) => dispatch(passwordResetActions.resetRequested(v.email)))}>
            <Field label={T.email} error={formState.errors.email?.message}>
              <input type="email" autoComplete="email" {...register('email')} />
            </Field>
            <button type="submit" className="button primary" disabled={pending}>{T.sendButton}</button>
          </form>
        </>
      )}
      <p><Link to={contentPath('join')}>{T.backToJoin}</Link></p>
    </section>
  );
}

/** The mailed link's page: a new password, twice. */
function NewPasswordFormSection({ token }: { token: string }) {
  const dispatch = useAppDispatch();
  const { pending, done, linkInvalid, errors } = useAppSelector(selectPasswordReset);
  const checking = useAppSelector((state) => selectLinkChecking(state, token));
  const { register, handleSubmit, formState, setError } = useForm<NewPasswordForm>({
    resolver: newPasswordResolver,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { password: '', confirm: '' },
  });
  useServerError(setError, 'password', errors.password);
  return (
    <section className="panel narrow" aria-labelledby="reset-title">
      <h1 id="reset-title">{T.resetTitle}</h1>
      {done ? (
        <p className="notice" role="status">
          {T.done} <Link to={contentPath('join')}>{T.signIn}</Link>
        </p>
      ) : checking ? (
        <p className="muted" role="status">{T.checking}</p>
      ) : (
        <>
          {errors.form && (
            <p className="form-error" role="alert">
              {errors.form} {linkInvalid && <Link to={contentPath('reset-password')}>{T.askAgain}</Link>}
            </p>
          )}
          {/* A dead link offers no form: only the way to a new one. */}
          {!linkInvalid && <form noValidate onSubmit={handleSubmit((v) => dispatch(passwordResetActions.confirmRequested({ token, password: v.password })))}>
            <Field label={T.newPassword} hint={T.newPasswordHint} error={formState.errors.password?.message}>
              <input type="password" autoComplete="new-password" {...register('password')} />
            </Field>
            <Field label={T.repeatPassword} error={formState.errors.confirm?.message}>
              <input type="password" autoComplete="new-password" {...register('confirm')} />
            </Field>
            <button type="submit" className="button primary" disabled={pending}>{T.resetButton}</button>
          </form>}
        </>
      )}
    </section>
  );
}

/** Where a reload of the cleaned address finds the token: the history entry's own state, never sent anywhere. */
interface ResetLinkState {
  resetToken?: string;
}

/**
 * The mailed link's token: in the fragment (`#token=…`, which browsers send to no server), or in
 * the query of a link mailed before the fragment was used (`?token=…`, valid an hour, so soon
 * gone); else the one a reload finds in the history entry.
 */
function tokenOf(location: Location): { token: string; inAddress: boolean } {
  const inAddress = new URLSearchParams(location.hash.slice(1)).get('token') ?? new URLSearchParams(location.search).get('token');
  if (inAddress) return { token: inAddress, inAddress: true };
  const kept = (location.state as ResetLinkState | null)?.resetToken;
  return { token: typeof kept === 'string' ? kept : '', inAddress: false };
}

/** /content/reset-password: without a token, the e-mail form; with the mailed link's token, the new password. */
export default function ResetPasswordPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const { token, inAddress } = tokenOf(location);
  useTitle(`${token ? T.resetTitle : T.forgotTitle} · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  // A link opened again in the same tab (a fragment navigation, no reload) starts over too, its
  // token checked at once; taking the token out of the address bar (below) is no new opening.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    if (!inAddress && opened.current === token) return;
    opened.current = token;
    dispatch(passwordResetActions.opened(token));
  }, [dispatch, token, inAddress]);
  // Read once, then out of the address bar (history.replaceState): no screenshot, shared screen,
  // bookmark or later script on the page sees it.
  useEffect(() => {
    if (inAddress) void navigate({ pathname: location.pathname, search: '', hash: '' }, { replace: true, state: { resetToken: token } satisfies ResetLinkState });
  }, [inAddress, location.pathname, navigate, token]);
  return token ? <NewPasswordFormSection token={token} /> : <ForgotPasswordForm />;
}
