import type { ReadModelWrite, UserRow } from '../read-models/types';
import { isMember } from './ranking';

/** The country a user counts for: members with a country on their card. */
function countedCountry(row: UserRow | undefined): string | null {
  return row && isMember(row) && row.country !== '' ? row.country : null;
}

/** Members per country, as the change between a user's row before and after a batch (appended to `writes`; true when any). */
export function countryWrites(before: UserRow | undefined, after: UserRow, writes: ReadModelWrite[]): boolean {
  const was = countedCountry(before);
  const is = countedCountry(after);
  if (was === is) return false;
  if (was !== null) writes.push({ op: 'country', country: was, delta: -1 });
  if (is !== null) writes.push({ op: 'country', country: is, delta: 1 });
  return true;
}
