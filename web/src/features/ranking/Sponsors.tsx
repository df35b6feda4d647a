import { ANONYMOUS_NICKNAME, isSafeLink, type RankingEntry } from '@pass/events/kernel';
import { formatNumber } from '../../lib/format';

/** A member whose card the admin removed keeps the passes and the rank, without a name. */
const nameOf = (entry: RankingEntry) => entry.fullname.trim() || ANONYMOUS_NICKNAME;

function Avatar({ entry }: { entry: RankingEntry }) {
  return entry.imageUrl ? (
    <img src={entry.imageUrl} alt={nameOf(entry)} width={96} height={96} loading="lazy" />
  ) : (
    <span className="avatar" aria-hidden="true">{nameOf(entry).slice(0, 1).toUpperCase()}</span>
  );
}

export interface SponsorsProps {
  query: string;
  entries: RankingEntry[];
  onQuery: (q: string) => void;
}

/** Members ranked by passes, searchable by name or country (docs/product.md §2 home). */
export function Sponsors({ query, entries, onQuery }: SponsorsProps) {
  const ranked = [...entries].sort((a, b) => b.passes - a.passes || a.rank - b.rank);
  return (
    <section id="sponsors" className="sponsors" aria-labelledby="sponsors-title">
      <h2 id="sponsors-title">Sponsors</h2>
      <input type="search" className="search" placeholder="Search by name or country" aria-label="Search sponsors by name or country"
        value={query} onChange={(e) => onQuery(e.target.value)} />
      {ranked.length === 0 ? (
        <p className="muted">No members found.</p>
      ) : (
        <ul className="sponsor-grid">
          {ranked.map((m) => (
            <li key={m.userId} className="sponsor-card" title={m.message}>
              <span className="rank">#{m.rank}</span>
              <span className="passes">{formatNumber(m.passes)} passes</span>
              {isSafeLink(m.link) ? (
                <a href={m.link} target="_blank" rel="noopener noreferrer nofollow ugc" aria-label={`${nameOf(m)}'s link`}>
                  <Avatar entry={m} />
                </a>
              ) : (
                <Avatar entry={m} />
              )}
              <strong>{nameOf(m)}</strong>
              <span className="muted">{m.country}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
