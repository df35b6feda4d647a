import { useEffect } from 'react';
import { FREE_POINT_COUNTDOWN_SECONDS, POINTS_PER_PASS, PRODUCT_NAME } from '@pass/events/kernel';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { AdBanner } from '../../components/AdBanner';
import { formatNumber, formatSeconds } from '../../lib/format';
import { pageEntered, pageLeft } from '../../features/ui/pageActions';
import { useTitle } from '../../lib/hooks';

/** Free points: the countdown runs in the check saga while this page is open. */
export default function CheckPage() {
  useTitle(`Free Points · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const seconds = useAppSelector((s) => s.checkseconds.seconds);
  const points = useAppSelector((s) => s.user.user.chatCount);
  const registered = useAppSelector((s) => s.user.user.email !== '');

  useEffect(() => {
    dispatch(pageEntered('check'));
    return () => void dispatch(pageLeft('check'));
  }, [dispatch]);

  return (
    <section className="panel check" aria-labelledby="check-title">
      <h1 id="check-title">Free Points</h1>
      <p className="countdown big" aria-live="polite" aria-label="Time left">{formatSeconds(seconds)}</p>
      {seconds < FREE_POINT_COUNTDOWN_SECONDS && <AdBanner slot="check" index={2} />}
      <p>Every {POINTS_PER_PASS} points you can request a new pass.</p>
      {registered && <p className="muted">Your points: {formatNumber(points)}</p>}
    </section>
  );
}
