import { Navigate } from 'react-router-dom';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { adminLoginSchema } from '@pass/events/kernel';
import type { AdminLoginRequest } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { selectAdminAuthorized } from '../../lib/state/session-selectors';
import { adminActions } from './slice';

/** /content/admin: the dashboard when authorized, else the login (Spanish UI). */
export default function AdminLoginPage() {
  useTitle(`Administración · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const authorized = useAppSelector(selectAdminAuthorized);
  const { error, pending } = useAppSelector((state) => state.admin);
  const { register, handleSubmit, formState } = useForm<AdminLoginRequest>({
    resolver: zodResolver(adminLoginSchema),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { email: '', password: '' },
  });
  if (authorized) return <Navigate to={contentPath('admin/dashboard')} replace />;
  return (
    <section className="panel narrow" lang="es" aria-labelledby="admin-title">
      <h1 id="admin-title">Administración</h1>
      {error && <p className="form-error" role="alert">{error}</p>}
      <form noValidate onSubmit={handleSubmit((v) => dispatch(adminActions.loginRequested(v)))}>
        <Field label="Correo electrónico" error={formState.errors.email?.message}>
          <input type="email" autoComplete="username" {...register('email')} />
        </Field>
        <Field label="Contraseña" error={formState.errors.password?.message}>
          <input type="password" autoComplete="current-password" {...register('password')} />
        </Field>
        <button type="submit" className="button primary" disabled={pending}>Iniciar sesión</button>
      </form>
    </section>
  );
}
