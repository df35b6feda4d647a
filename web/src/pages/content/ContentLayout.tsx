import { Link, Outlet } from 'react-router-dom';
import { FREE_POINT_COUNTDOWN_SECONDS } from '@pass/events/kernel';
import { useAppSelector } from '../../app/hooks';
import { CloseIcon } from '../../components/Icons';

/** The /content shell: a close button to / once the banner loaded or while the countdown rests at 30. */
export default function ContentLayout() {
  const bannerThree = useAppSelector((s) => s.popup.bannerThree);
  const seconds = useAppSelector((s) => s.checkseconds.seconds);
  const showClose = bannerThree || seconds === FREE_POINT_COUNTDOWN_SECONDS;
  return (
    <div className="content">
      {showClose && (
        <Link to="/" className="icon-button content-close" aria-label="Close and go home">
          <CloseIcon />
        </Link>
      )}
      <Outlet />
    </div>
  );
}
