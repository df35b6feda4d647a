import { Link, Navigate, useLocation } from 'react-router-dom';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import type { RankingEntry } from '@pass/events/kernel';
import { useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { selectAdminAuthorized } from '../../lib/state/session-selectors';
import { Certificate } from './Certificate';

/** Any member's certificate, for the admin; the member comes in navigation state. */
export default function AdminCertificatePage() {
  useTitle(`Certificado · ${PRODUCT_NAME}`);
  const { state } = useLocation();
  const authorized = useAppSelector(selectAdminAuthorized);
  const selected = (state as { selectedUser?: RankingEntry } | null)?.selectedUser;
  if (!selected) return <Navigate to="/" replace />;
  if (!authorized) return <Navigate to={contentPath('admin')} replace />;
  return (
    <section className="certificate-page">
      {/* The admin came from the dashboard and goes back to it (the dashboard is in Spanish). */}
      <Link className="button no-print back-link" to={contentPath('admin/dashboard')} lang="es">
        Volver al panel
      </Link>
      <Certificate fullname={selected.fullname} createdAt={selected.createdAt} passes={selected.passes} />
      <button type="button" className="button primary no-print" onClick={() => window.print()}>
        Download Certificate
      </button>
    </section>
  );
}
