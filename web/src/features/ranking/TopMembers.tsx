import type { CountriesView } from '@pass/events/kernel';
import { LIMITS } from '@pass/events/kernel';
import { formatNumber } from '../../lib/format';

/** "Best Countries": distinct countries, then the top 5 by user count (docs/product.md §2 home). */
export function TopMembers({ countries }: { countries: CountriesView }) {
  const top = [...countries.top].sort((a, b) => b.users - a.users).slice(0, LIMITS.topCountries);
  return (
    <section className="top-members" aria-labelledby="top-members-title">
      <h2 id="top-members-title">Top Members</h2>
      <h3>
        Best Countries <span className="pill">{formatNumber(countries.distinct)}</span>
      </h3>
      <ol>
        {top.map((c) => (
          <li key={c.country}>
            <span>{c.country}</span>
            <span className="pill">{formatNumber(c.users)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
