import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { FREE_POINT_COUNTDOWN_SECONDS, POINTS_PER_PASS, PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { AdBanner } from '../../components/AdBanner';
import { JoinRedirect } from '../../components/JoinRedirect';
import { formatNumber, formatSeconds } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { pageEntered, pageLeft } from '../../lib/state/page';
import { selectHasUserOrStored, selectIsRegistered, selectPoints } from '../../lib/state/session-selectors';
import { OUT_OF_POINTS } from './texts';


/** Free points (docs/product.md §2 /content/check): the countdown runs in the saga while this page is open. Members only. */
export default function FreePointsPage() {
  useTitle(`Free Points · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const seconds = useAppSelector((state) => state.checkseconds.seconds);
  const points = useAppSelector(selectPoints);
  const registered = useAppSelector(selectIsRegistered);
  // A stored id means the member is being fetched: the countdown may start meanwhile.
  const allowed = useAppSelector(selectHasUserOrStored);

  useEffect(() => {
    if (!allowed) return;
    dispatch(pageEntered('check'));
    return () => void dispatch(pageLeft('check'));
  }, [allowed, dispatch]);

  if (!allowed) return <JoinRedirect reason="free-points" />;

  return (
    <section className="panel check" aria-labelledby="check-title">
      <h1 id="check-title">Free Points</h1>
      {registered && points <= 0 && (
        <p className="notice" role="status">
          {OUT_OF_POINTS} <Link to={contentPath('points')}>Buy Points</Link>
        </p>
      )}
      <p className="countdown big" aria-live="polite" aria-label="Time left">{formatSeconds(seconds)}</p>
      {seconds < FREE_POINT_COUNTDOWN_SECONDS && <AdBanner slot="check" index={2} />}
      <p>Every {POINTS_PER_PASS} points you can request a new pass.</p>
      {registered && <p className="muted">Your points: {formatNumber(points)}</p>}
    </section>
  );
}
