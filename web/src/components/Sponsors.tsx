import type { RankingEntry } from '@pass/events/api';
import { formatNumber } from '../lib/format';

export interface SponsorsProps {
  query: string;
  entries: RankingEntry[];
  onQuery: (q: string) => void;
}

/** Members ranked by passes, searchable by name or country (spec §2 home). */
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
              <a href={m.link} target="_blank" rel="noopener noreferrer nofollow" aria-label={`${m.fullname}'s link`}>
                {m.imageUrl ? <img src={m.imageUrl} alt={m.fullname} width={96} height={96} loading="lazy" /> : <span className="avatar" aria-hidden="true">{m.fullname.slice(0, 1)}</span>}
              </a>
              <strong>{m.fullname}</strong>
              <span className="muted">{m.country}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
