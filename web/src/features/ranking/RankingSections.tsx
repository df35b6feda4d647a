import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { selectCountries } from '../../lib/state/site-selectors';
import { rankingActions } from './slice';
import { Sponsors } from './Sponsors';
import { TopMembers } from './TopMembers';

/** Home's ranking (docs/product.md §2 home): Top Members by country, then the searchable sponsors. */
export function RankingSections() {
  const dispatch = useAppDispatch();
  const countries = useAppSelector(selectCountries);
  const ranking = useAppSelector((state) => state.users.ranking);

  useEffect(() => {
    if (!ranking.loaded) dispatch(rankingActions.rankingRequested(ranking.query));
    // Only the first visit loads; later updates come from the live main-data event.
  }, [dispatch]);

  return (
    <>
      <TopMembers countries={countries} />
      <Sponsors query={ranking.query} entries={ranking.items} onQuery={(q) => dispatch(rankingActions.rankingRequested(q))} />
    </>
  );
}
