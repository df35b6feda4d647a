import type { CountriesView, MainDataView } from '@pass/events';
import { fundsRaised } from '../projections/main-data';
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

export function toCountriesView(countries: CountriesRecord): CountriesView {
  return { distinct: countries.distinct, top: countries.top.map((c) => ({ country: c.country, users: c.users })) };
}
