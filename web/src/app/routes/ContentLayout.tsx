import { Link, Outlet } from 'react-router-dom';
import { CloseIcon } from '../../components/Icons';
import { useAppSelector } from '../../lib/store-hooks';
import { selectContentCloseShown } from '../../features/free-points';

/** The /content shell (docs/product.md §2): a close button to / once the free-points banner loaded or while its countdown rests at 30. */
export default function ContentLayout() {
  const showClose = useAppSelector(selectContentCloseShown);
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
