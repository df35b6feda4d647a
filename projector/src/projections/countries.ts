import type { ReadModelWrite, UserRow } from '../read-models/types';
import { projection } from './projection';
import { isMember } from './ranking';

/** Members per country: kept from the user rows. */
export const countries = projection({
  handles: [],
  rowChanged(before, after, copy, out) {
    if (countryWrites(before, after, out)) copy.countriesChanged = true;
  },
  rowErased(before, copy, out) {
    const was = countedCountry(before);
    if (was === null) return;
    out.push({ op: 'country', country: was, delta: -1 });
    copy.countriesChanged = true;
  },
});

/** The country a user counts for: members with a country on their card. */
function countedCountry(row: UserRow | undefined): string | null {
  return row && isMember(row) && row.country !== '' ? row.country : null;
}

/** Members per country, as the change between a user's row before and after a batch (appended to `writes`; true when any). */
function countryWrites(before: UserRow | undefined, after: UserRow, writes: ReadModelWrite[]): boolean {
  const was = countedCountry(before);
  const is = countedCountry(after);
  if (was === is) return false;
  if (was !== null) writes.push({ op: 'country', country: was, delta: -1 });
  if (is !== null) writes.push({ op: 'country', country: is, delta: 1 });
  return true;
}
