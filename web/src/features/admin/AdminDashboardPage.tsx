import { useEffect, useState } from 'react';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { Navigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { adViewsSchema, mainDataSchema, type AdminPostEntry, type MainDataForm, type ProjectionStatus } from '@pass/events/kernel';
import { Field } from '../../components/Field';
import { formatDate, formatNumber } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { selectAdminAuthorized } from '../../lib/state/session-selectors';
import { selectMainData } from '../../lib/state/site-selectors';
import { adminActions } from './slice';
import { AdminPosts, EraseDialog } from './AdminPosts';
import { HistoryPanel } from './AdminHistory';
import { TimeMachine } from './time-machine/TimeMachine';

function MainDataEditor() {
  const dispatch = useAppDispatch();
  const data = useAppSelector(selectMainData);
  const { register, handleSubmit, formState, reset } = useForm<MainDataForm>({
    resolver: zodResolver(mainDataSchema) as never,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { available: data.available, cpm: data.cpm, donations: data.donations, startDate: data.startDate },
  });
  useEffect(() => {
    reset({ available: data.available, cpm: data.cpm, donations: data.donations, startDate: data.startDate });
  }, [data.available, data.cpm, data.donations, data.startDate, reset]);
  const e = formState.errors;
  return (
    <form className="card" noValidate
      onSubmit={handleSubmit((v) => dispatch(adminActions.editMainDataRequested(v)), () => dispatch(adminActions.formRefused()))}>
      <h2>Editar datos principales</h2>
      <Field label="Pases disponibles" error={e.available?.message}>
        <input type="number" {...register('available')} />
      </Field>
      <Field label="CPM (USD)" error={e.cpm?.message}>
        <input type="number" step="0.01" {...register('cpm')} />
      </Field>
      <Field label="Donaciones (USD)" error={e.donations?.message}>
        <input type="number" step="0.01" {...register('donations')} />
      </Field>
      <Field label="Fecha de inicio (dd/mm/aaaa)" error={e.startDate?.message}>
        <input {...register('startDate')} />
      </Field>
      <button type="submit" className="button primary">Guardar</button>
    </form>
  );
}

function AdViewsEditor() {
  const dispatch = useAppDispatch();
  const views = useAppSelector((state) => state.mainData.data.views);
  const { register, handleSubmit, formState } = useForm<{ views: number }>({
    resolver: zodResolver(adViewsSchema) as never,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: { views },
  });
  return (
    <form className="card" noValidate
      onSubmit={handleSubmit((v) => dispatch(adminActions.resetViewsRequested(Number(v.views))), () => dispatch(adminActions.formRefused()))}>
      <h2>Vistas de anuncios</h2>
      <p className="muted">Actuales: {formatNumber(views)}</p>
      <Field label="Vistas" error={formState.errors.views?.message}>
        <input type="number" {...register('views')} />
      </Field>
      <button type="submit" className="button primary">Establecer vistas</button>
    </form>
  );
}

function ProjectionsCard() {
  const dispatch = useAppDispatch();
  const status = useAppSelector((state) => state.admin.projections);
  useEffect(() => {
    dispatch(adminActions.projectionsRequested());
  }, [dispatch]);
  const rebuilding = status?.rebuild.state === 'running' || status?.rebuild.state === 'switching';
  return (
    <div className="card">
      <h2>Proyecciones</h2>
      {status ? (
        <dl className="facts">
          <dt>Posición</dt>
          <dd>{status.position} / {status.headPosition}</dd>
          <dt>Retraso</dt>
          <dd>{formatNumber(status.lagEvents)} eventos · {formatNumber(status.lagSeconds)} s</dd>
          <dt>Reconstrucción</dt>
          <dd>
            {status.rebuild.state}
            {rebuilding && ` (${formatNumber(status.rebuild.processed)} / ${formatNumber(status.rebuild.total)})`}
          </dd>
          {status.lastError && (
            <>
              <dt>Último error</dt>
              <dd className="error">{status.lastError}</dd>
            </>
          )}
          {status.leadership && <LeadershipFacts leadership={status.leadership} />}
        </dl>
      ) : (
        <p className="muted">Sin datos.</p>
      )}
      <div className="row-actions">
        <button type="button" className="button" onClick={() => dispatch(adminActions.projectionsRequested())}>Actualizar</button>
        <button type="button" className="button danger" disabled={rebuilding}
          onClick={() => window.confirm('¿Reconstruir las proyecciones desde el inicio?') && dispatch(adminActions.rebuildRequested())}>
          Reconstruir
        </button>
      </div>
    </div>
  );
}

const ROLE_NAMES = { leader: 'líder', standby: 'en espera', builder: 'construyendo una versión nueva' } as const;

/** Distributed: who leads the projectors (the lease's holder and epoch) and what each one does. */
function LeadershipFacts({ leadership }: { leadership: NonNullable<ProjectionStatus['leadership']> }) {
  return (
    <>
      <dt>Líder</dt>
      <dd className={leadership.holder ? undefined : 'error'}>
        {leadership.holder ? `${leadership.holder} (época ${formatNumber(leadership.epoch)})` : 'Ningún proyector lidera'}
      </dd>
      <dt>Proyectores</dt>
      <dd>
        <ul aria-label="Proyectores">
          {leadership.members.map((member) => (
            <li key={member.instance}>
              {member.instance}: {ROLE_NAMES[member.role]}
            </li>
          ))}
        </ul>
      </dd>
    </>
  );
}

/** Image jobs that failed every attempt (the dead letters): when, how often tried, why. */
function ImageJobsCard() {
  const dispatch = useAppDispatch();
  const failures = useAppSelector((state) => state.admin.imageJobs);
  useEffect(() => {
    dispatch(adminActions.imageJobsRequested());
  }, [dispatch]);
  return (
    <div className="card">
      <h2>Imágenes fallidas {failures && failures.queue === 'bullmq' && <span className="pill">{formatNumber(failures.total)}</span>}</h2>
      {!failures ? (
        <p className="muted">Sin datos.</p>
      ) : failures.queue === 'in-process' ? (
        <p className="muted">Las imágenes se procesan en este mismo proceso: no hay cola ni trabajos fallidos.</p>
      ) : failures.jobs.length === 0 ? (
        <p className="muted">Ningún trabajo ha agotado sus intentos.</p>
      ) : (
        <div className="table-scroll">
          <table className="registry" aria-label="Trabajos de imagen fallidos">
            <thead>
              <tr>
                <th scope="col">Trabajo</th>
                <th scope="col">Fecha</th>
                <th scope="col">Intentos</th>
                <th scope="col">Motivo</th>
              </tr>
            </thead>
            <tbody>
              {failures.jobs.map((job) => (
                <tr key={job.id}>
                  <td>{job.id}</td>
                  <td>{formatDate(job.failedAt)}</td>
                  <td>{formatNumber(job.attempts)}</td>
                  <td>{job.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row-actions">
        <button type="button" className="button" onClick={() => dispatch(adminActions.imageJobsRequested())}>Actualizar</button>
      </div>
    </div>
  );
}

/** The admin's one action on the global chat: delete every message, once confirmed. */
function ChatCard() {
  const dispatch = useAppDispatch();
  return (
    <div className="card">
      <h2>Chat global</h2>
      <button type="button" className="button danger"
        onClick={() => window.confirm('¿Eliminar todos los mensajes del chat?') && dispatch(adminActions.deleteChatRequested())}>
        Eliminar mensajes del chat
      </button>
    </div>
  );
}

/** The admin dashboard (Spanish UI, docs/product.md §2). */
export default function AdminDashboardPage() {
  useTitle(`Panel de administración · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const authorized = useAppSelector(selectAdminAuthorized);
  const email = useAppSelector((state) => state.admin.email);
  // The member whose erasure waits for the admin's confirmation.
  const [erasing, setErasing] = useState<AdminPostEntry | null>(null);

  if (!authorized) return <Navigate to={contentPath('admin')} replace />;

  return (
    <section className="panel wide admin" lang="es" aria-labelledby="dashboard-title">
      <header className="admin-header">
        <h1 id="dashboard-title">Panel de administración</h1>
        <span className="muted">{email}</span>
        <button type="button" className="button" onClick={() => dispatch(adminActions.logoutRequested())}>Cerrar sesión</button>
      </header>
      <div className="admin-grid">
        <MainDataEditor />
        <AdViewsEditor />
        <ChatCard />
        <ProjectionsCard />
        <ImageJobsCard />
      </div>
      <TimeMachine />
      <AdminPosts onErase={setErasing} />
      <HistoryPanel />
      {erasing && (
        <EraseDialog member={erasing} onCancel={() => setErasing(null)}
          onConfirm={() => {
            dispatch(adminActions.eraseMemberRequested(erasing.userId));
            setErasing(null);
          }} />
      )}
    </section>
  );
}
