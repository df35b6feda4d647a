import { useEffect } from 'react';
import { useForm, type FieldPath, type FieldValues, type UseFormSetError } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { changePasswordSchema, PRODUCT_NAME, type ChangePasswordForm } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { JoinRedirect } from '../../components/JoinRedirect';
import { Modal } from '../../components/Modal';
import { formatNumber } from '../../lib/format';
import { useTitle } from '../../lib/hooks';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { selectHasUserOrStored, selectUser } from '../../lib/state/session-selectors';
import { myDataActions, selectMyData } from './slice';
import { lossList, MY_DATA_TEXTS as T } from './texts';

/** A refusal from the server goes beside its field, which takes the focus. */
function useServerError<F extends FieldValues>(setError: UseFormSetError<F>, name: FieldPath<F>, message: string | undefined) {
  useEffect(() => {
    if (message) setError(name, { type: 'server', message }, { shouldFocus: true });
  }, [message, name, setError]);
}

/** A section's own line for a refusal that belongs to no field (a wait, a network failure). */
function SectionError({ message }: { message: string | undefined }) {
  return message ? <p className="form-error" role="alert">{message}</p> : null;
}

function ChangePasswordSection() {
  const dispatch = useAppDispatch();
  const { pending, errors, passwordChanged } = useAppSelector(selectMyData);
  const { register, handleSubmit, formState, setError, reset } = useForm<ChangePasswordForm>({
    resolver: zodResolver(changePasswordSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { currentPassword: '', newPassword: '' },
  });
  useServerError(setError, 'currentPassword', errors.currentPassword);
  useServerError(setError, 'newPassword', errors.newPassword);
  useEffect(() => {
    if (passwordChanged) reset();
  }, [passwordChanged, reset]);
  return (
    <section className="card" aria-labelledby="my-data-password">
      <h2 id="my-data-password">{T.passwordTitle}</h2>
      <SectionError message={errors.changePassword} />
      {passwordChanged && <p className="notice" role="status">{T.passwordChanged}</p>}
      <form noValidate onSubmit={handleSubmit((values) => dispatch(myDataActions.changePasswordRequested(values)))}>
        <Field label={T.currentPassword} error={formState.errors.currentPassword?.message}>
          <input type="password" autoComplete="current-password" {...register('currentPassword')} />
        </Field>
        <Field label={T.newPassword} hint={T.newPasswordHint} error={formState.errors.newPassword?.message}>
          <input type="password" autoComplete="new-password" {...register('newPassword')} />
        </Field>
        <button type="submit" className="button primary" disabled={pending === 'changePassword'}>{T.passwordButton}</button>
      </form>
    </section>
  );
}

function DeleteDialog() {
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const { pending, errors } = useAppSelector(selectMyData);
  const { register, handleSubmit, formState, setError } = useForm<{ password: string }>({
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { password: '' },
  });
  useServerError(setError, 'password', errors.password);
  const close = () => dispatch(myDataActions.deleteDialogClosed());
  return (
    <Modal className="checkout" labelledBy="delete-account-title" onEscape={close}>
      <div className="checkout-inner">
        <h2 id="delete-account-title">{T.dialogTitle}</h2>
        <p>{T.dialogLead}</p>
        <ul>
          {lossList(formatNumber(user.chatCount), formatNumber(user.passes)).map((loss) => (
            <li key={loss}>{loss}</li>
          ))}
        </ul>
        <p className="muted">{T.dialogTotals}</p>
        <SectionError message={errors.deleteAccount} />
        <form noValidate onSubmit={handleSubmit((v) => dispatch(myDataActions.deleteAccountRequested(v.password)))}>
          <Field label={T.dialogPassword} error={formState.errors.password?.message}>
            <input type="password" autoComplete="current-password" {...register('password', { required: T.dialogPasswordRequired })} />
          </Field>
          <div className="row-actions">
            <button type="submit" className="button danger" disabled={pending === 'deleteAccount'}>{T.dialogConfirm}</button>
            <button type="button" className="button" onClick={close}>{T.dialogCancel}</button>
          </div>
        </form>
      </div>
    </Modal>
  );
}

/** "Your data": a member's download, password, sessions and account. */
export default function MyDataPage() {
  useTitle(`${T.title} · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const allowed = useAppSelector(selectHasUserOrStored);
  const user = useAppSelector(selectUser);
  const { pending, errors, confirmingDelete } = useAppSelector(selectMyData);
  if (!allowed) return <JoinRedirect reason="my-data" />;
  return (
    <section className="panel narrow my-data" aria-labelledby="my-data-title">
      <h1 id="my-data-title">{T.title}</h1>
      <p className="muted">
        {T.intro} {user.email && <>Signed in as <strong>{user.email}</strong>.</>}
      </p>
      <section className="card" aria-labelledby="my-data-download">
        <h2 id="my-data-download">{T.downloadTitle}</h2>
        <p>{T.downloadText}</p>
        <SectionError message={errors.download} />
        <button type="button" className="button primary" disabled={pending === 'download'}
          onClick={() => dispatch(myDataActions.downloadRequested())}>
          {T.downloadButton}
        </button>
      </section>
      <ChangePasswordSection />
      <section className="card" aria-labelledby="my-data-everywhere">
        <h2 id="my-data-everywhere">{T.everywhereTitle}</h2>
        <p>{T.everywhereText}</p>
        <SectionError message={errors.logoutEverywhere} />
        <button type="button" className="button" disabled={pending === 'logoutEverywhere'}
          onClick={() => dispatch(myDataActions.logoutEverywhereRequested())}>
          {T.everywhereButton}
        </button>
      </section>
      <section className="card" aria-labelledby="my-data-delete">
        <h2 id="my-data-delete">{T.deleteTitle}</h2>
        <p>{T.deleteText}</p>
        <button type="button" className="button danger" onClick={() => dispatch(myDataActions.deleteDialogOpened())}>
          {T.deleteButton}
        </button>
      </section>
      {confirmingDelete && <DeleteDialog />}
    </section>
  );
}
