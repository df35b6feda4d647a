import { useEffect } from 'react';
import { PRODUCT_NAME, contentPath, type RegistryRow } from '@pass/events/kernel';
import { Link } from 'react-router-dom';
import { DownloadIcon, StarIcon } from '../../components/Icons';
import { formatDate, formatNumber } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { useTitle } from '../../lib/hooks';
import { userActions } from '../../lib/state/session';
import { selectCertificateHref, selectIsRegistered, selectUser } from '../../lib/state/session-selectors';
import { selectAvailableText, selectTakenText } from '../../lib/state/site-selectors';
import { registryActions } from './slice';
import { EmailText } from './EmailText';

/** The site's figures and the member's points (a guest has none: not shown), over the table. */
function ParticipantsStats({ available, taken, points }: { available: string; taken: string; points: number | null }) {
  return (
    <dl className="stats small">
      <div>
        <dt>Available</dt>
        <dd>{available}</dd>
      </div>
      <div>
        <dt>Taken</dt>
        <dd>{taken}</dd>
      </div>
      {points !== null && (
        <div>
          <dt>Your points</dt>
          <dd>{formatNumber(points)}</dd>
        </div>
      )}
    </dl>
  );
}

interface ParticipantsActionsProps {
  registered: boolean;
  certificateHref: string;
  onLogout: () => void;
}

/** Free points or join, buy points, the certificate, and a member's data and logout. */
function ParticipantsActions({ registered, certificateHref, onLogout }: ParticipantsActionsProps) {
  return (
    <div className="actions">
      {registered ? (
        <Link to={contentPath('check')} className="button primary">Free Points</Link>
      ) : (
        <Link to={contentPath('join')} className="button primary">Join the project</Link>
      )}
      <Link to={contentPath('points')} className="button">Buy Points</Link>
      <Link to={certificateHref} className="icon-button" aria-label="Download certificate">
        <DownloadIcon />
      </Link>
      {registered && <Link to={contentPath('my-data')} className="button">Your data</Link>}
      {registered && (
        <button type="button" className="link-button" onClick={onLogout}>
          Logout
        </button>
      )}
    </div>
  );
}

/** An empty table: nobody matches the filter (and what to try), or nobody has joined yet. */
function RegistryEmpty({ query }: { query: string }) {
  return query.trim() ? (
    <p className="empty" role="status">
      No member matches “{query.trim()}”. Try part of a name, of a date (dd/mm/yyyy) or of the e-mail the table shows.
    </p>
  ) : (
    <p className="empty">Become the first one!</p>
  );
}

/** The members' table, most passes first; the member's own row marked. */
function RegistryTable({ rows, ownId }: { rows: RegistryRow[]; ownId: string }) {
  return (
    // Fits a phone; if it ever does not, it scrolls inside this region, which the keyboard reaches.
    <div className="table-scroll" role="region" aria-label="Participants table" tabIndex={0}>
      <table className="registry">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Members</th>
            <th scope="col">Passes</th>
            <th scope="col">Points</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.userId} className={row.userId === ownId ? 'own' : undefined}
              aria-current={row.userId === ownId ? 'true' : undefined}>
              <td>{formatDate(row.createdAt)}</td>
              <td>
                {row.priority === 'specialUser' && (
                  <span className="special" title="Special member" role="img" aria-label="Special member">
                    <StarIcon size={14} />
                  </span>
                )}{' '}
                <EmailText text={row.member} />
              </td>
              <td>{formatNumber(row.passes)}</td>
              <td>{formatNumber(row.points)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The registry (docs/product.md §2 /content/participants, also /content/registered). */
export default function ParticipantsPage() {
  useTitle(`Participants · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const registered = useAppSelector(selectIsRegistered);
  const certificateHref = useAppSelector(selectCertificateHref);
  const available = useAppSelector(selectAvailableText);
  const taken = useAppSelector(selectTakenText);
  const registry = useAppSelector((state) => state.users.registry);

  useEffect(() => {
    dispatch(registryActions.registryRequested(registry.query));
    // Load on open; typing re-queries through the saga.
  }, [dispatch]);

  const rows = [...registry.items].sort((a, b) => b.passes - a.passes);

  return (
    <section className="panel wide" aria-labelledby="participants-title">
      <h1 id="participants-title">Participants</h1>
      <ParticipantsStats available={available} taken={taken} points={registered ? user.chatCount : null} />
      <ParticipantsActions registered={registered} certificateHref={certificateHref}
        onLogout={() => dispatch(userActions.logoutRequested())} />
      <input type="search" className="search" placeholder="Filter by email, name or date" aria-label="Filter participants by email, name or date"
        value={registry.query} onChange={(e) => dispatch(registryActions.registryRequested(e.target.value))} />
      {registry.loaded && rows.length === 0 ? <RegistryEmpty query={registry.query} /> : <RegistryTable rows={rows} ownId={user.id} />}
    </section>
  );
}
