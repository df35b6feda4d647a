import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { useTitle } from '../../lib/hooks';

/**
 * An unknown path (the server answers it 404): in the site's frame, with the router error screen's
 * words of docs/product.md §2 and a way home.
 */
export default function NotFoundPage() {
  useTitle(`Not found · ${PRODUCT_NAME}`);
  return (
    <section className="panel narrow" aria-labelledby="not-found-title">
      <p className="muted">Unexpected Application Error!</p>
      <h1 id="not-found-title">404 Not Found</h1>
      <p>There is no page at this address.</p>
      <Link to="/" className="button primary">Go to the home page</Link>
    </section>
  );
}
