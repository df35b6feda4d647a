import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { LoadingOverlay } from '../../components/LoadingOverlay';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { selectGetPassHref, selectJoinButtonHref } from '../../lib/state/session-selectors';
import { selectAvailableText, selectFundsText, selectTakenText } from '../../lib/state/site-selectors';
import { Carousel } from './Carousel';

const CERTIFICATES = [1, 2, 3, 4, 5].map((n) => ({ src: `/certificates/certificate-${n}.svg`, alt: `Sample certificate ${n}` }));

export interface HomePageProps {
  /** The members' ranking sections (Top Members, Sponsors: features/ranking), after the goal line. */
  ranking: ReactNode;
}

/** Home / (docs/product.md §2): hero and stats, certificate samples, the goal line, then the ranking. */
export function HomePage({ ranking }: HomePageProps) {
  const dispatch = useAppDispatch();
  const isLoading = useAppSelector((state) => state.loading.isLoading);
  const available = useAppSelector(selectAvailableText);
  const taken = useAppSelector(selectTakenText);
  const funds = useAppSelector(selectFundsText);
  const joinHref = useAppSelector(selectJoinButtonHref);
  // "Request Your Pass" goes where "Get my pass" goes.
  const requestHref = useAppSelector(selectGetPassHref);

  useEffect(() => {
    dispatch(pageEntered('home'));
    return () => void dispatch(pageLeft('home'));
  }, [dispatch]);

  return (
    <div id="home" className="home">
      {isLoading && <LoadingOverlay />}
      <section className="hero" aria-labelledby="hero-title">
        <h1 id="hero-title">
          Get Your Free Pass Today! <span>Let's Reach 1 million Passes in 365 days</span>
        </h1>
        <dl className="stats">
          <div>
            <dt>Available Passes</dt>
            <dd>{available}</dd>
          </div>
          <div>
            <dt>Taken</dt>
            <dd>{taken}</dd>
          </div>
          <div>
            <dt>Funds Raised</dt>
            <dd>${funds}</dd>
          </div>
        </dl>
        <Link to={joinHref} className="button primary big">Join</Link>
      </section>
      <Carousel images={CERTIFICATES} />
      <nav className="goal-line" aria-label="Goal">
        <span>Let's get 1 million Members!</span>
        <span>Funds raised: ${funds}</span>
        <Link to={requestHref} className="button">Request Your Pass</Link>
      </nav>
      {ranking}
    </div>
  );
}
