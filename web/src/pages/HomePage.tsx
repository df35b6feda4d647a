import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../app/hooks';
import {
  selectAvailableText,
  selectCountries,
  selectFundsText,
  selectJoinButtonHref,
  selectRequestPassHref,
  selectTakenText,
} from '../app/selectors';
import { LoadingOverlay } from '../components/LoadingOverlay';
import { Carousel } from '../components/Carousel';
import { TopMembers } from '../components/TopMembers';
import { Sponsors } from '../components/Sponsors';
import { pageEntered, pageLeft } from '../features/ui/pageActions';
import { usersActions } from '../features/site/usersSlice';

const CERTIFICATES = [1, 2, 3, 4, 5].map((n) => ({ src: `/certificates/certificate-${n}.svg`, alt: `Sample certificate ${n}` }));

export function HomePage() {
  const dispatch = useAppDispatch();
  const isLoading = useAppSelector((s) => s.loading.isLoading);
  const available = useAppSelector(selectAvailableText);
  const taken = useAppSelector(selectTakenText);
  const funds = useAppSelector(selectFundsText);
  const joinHref = useAppSelector(selectJoinButtonHref);
  const requestHref = useAppSelector(selectRequestPassHref);
  const countries = useAppSelector(selectCountries);
  const ranking = useAppSelector((s) => s.users.ranking);

  useEffect(() => {
    dispatch(pageEntered('home'));
    return () => void dispatch(pageLeft('home'));
  }, [dispatch]);

  useEffect(() => {
    if (!ranking.loaded) dispatch(usersActions.rankingRequested(ranking.query));
    // Only the first visit loads; later updates come from the live main-data event.
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
      <TopMembers countries={countries} />
      <Sponsors query={ranking.query} entries={ranking.items}
        onQuery={(q) => dispatch(usersActions.rankingRequested(q))} />
    </div>
  );
}
