import { Navigate } from 'react-router-dom';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { JoinRedirect } from '../../components/JoinRedirect';
import { useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { selectUser } from '../../lib/state/session-selectors';
import { Certificate } from './Certificate';

/** The member's printable pass (docs/product.md §2 /content/certificate). */
export default function CertificatePage() {
  useTitle(`Certificate · ${PRODUCT_NAME}`);
  const user = useAppSelector(selectUser);
  const storedId = useAppSelector((state) => state.user.storedId);
  if (!user.email && !storedId) return <JoinRedirect reason="certificate" />;
  if (user.email && user.passes <= 0 && storedId) return <Navigate to={contentPath('post')} replace />;
  // The stored user is still being fetched.
  if (!user.email) return <p className="muted" role="status">Loading your certificate…</p>;
  return (
    <section className="certificate-page">
      <Certificate fullname={user.fullname} createdAt={user.createdAt} passes={user.passes} />
      <button type="button" className="button primary no-print" onClick={() => window.print()}>
        Download Certificate
      </button>
    </section>
  );
}
