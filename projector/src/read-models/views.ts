import { continuousProgress, fundsRaised, GOAL_DAYS, GOAL_PASSES, LIMITS, type CountriesView, type MainDataView, type ProgressDay, type ProgressView, type UpdatedMainDataPayload } from '@pass/events';
import type { Keyspace } from './port';
import type { CountriesRecord, MainRecord } from './types';

/** The wire shape of GET /api/main-data and of updatedMainData. */
export function toMainDataView(main: MainRecord): MainDataView {
  return {
    available: main.available,
    sold: main.sold,
    views: main.views,
    cpm: main.cpm,
    donations: main.donations,
    startDate: main.startDate,
    purchasesUsd: main.purchasesUsd,
    fundsRaised: fundsRaised(main),
    members: main.members,
    globalMessages: main.globalMessages,
  };
}

/**
 * The wire shape of GET /api/progress: the kernel's goal, the start date as main data gives it,
 * and the stored days with the quiet ones between them filled in (continuousProgress).
 */
export function toProgressView(main: MainRecord, days: readonly ProgressDay[]): ProgressView {
  return { goal: { passes: GOAL_PASSES, days: GOAL_DAYS }, startDate: main.startDate, days: continuousProgress(days) };
}

/** GET /api/progress, read from a keyspace. */
export async function readProgressView(keyspace: Keyspace): Promise<ProgressView> {
  const [main, days] = await Promise.all([keyspace.main(), keyspace.progress()]);
  return toProgressView(main, days);
}

export function toCountriesView(countries: CountriesRecord): CountriesView {
  return { distinct: countries.distinct, top: countries.top.map((entry) => ({ country: entry.country, users: entry.users })) };
}

/** The figures broadcast (`updatedMainData`) of a figures record and the top countries. */
export function updatedMainData(main: MainRecord, countries: CountriesRecord): UpdatedMainDataPayload {
  return { mainData: toMainDataView(main), countries: toCountriesView(countries) };
}

/** The top countries the figures broadcast carries, read from a keyspace. */
export const readTopCountries = (keyspace: Keyspace): Promise<CountriesRecord> => keyspace.countries(LIMITS.topCountries);

/** The figures broadcast (`updatedMainData`), read from a keyspace as a reload would show them. */
export async function readUpdatedMainData(keyspace: Keyspace): Promise<UpdatedMainDataPayload> {
  const [main, countries] = await Promise.all([keyspace.main(), readTopCountries(keyspace)]);
  return updatedMainData(main, countries);
}
