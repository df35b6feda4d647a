import { assertNever, roundCents } from '@pass/events';
import type { MainRecord } from '../read-models/types';
import { projection } from './projection';

/**
 * Site figures. `views` grows by one per FreePointAwarded: a free point is earned by watching
 * the ad banner of /content/check for its whole countdown, so each award is one ad view; an
 * admin's AdViewsReset sets the number outright. `available` follows the passes pool: set by
 * PassSupplySet, lowered by each reservation, raised again by what a release returns. `sold` counts
 * passes members actually received (PassesClaimed). The counts kept in the same record (members,
 * chat messages, registrations) are the ranking's, the chat's and the users' projections'; this
 * one stores the record, last, once they have counted.
 */
export const mainData = projection({
  handles: [
    'PassSupplySet',
    'PassesReserved',
    'PassReservationReleased',
    'PassesClaimed',
    'FreePointAwarded',
    'AdViewsReset',
    'MainDataEdited',
    'PointsPurchased',
    'PurchaseReversed',
  ],
  evolve({ main }, event) {
    switch (event.type) {
      case 'PassSupplySet':
        main.available = event.data.available;
        return;
      case 'PassesReserved':
        main.available = Math.max(0, main.available - event.data.passes);
        return;
      case 'PassReservationReleased':
        // `returned` is 0 when an admin's supply edit already counted the reservation (command-api's passes-pool/state.ts).
        main.available += event.data.returned ?? event.data.passes;
        return;
      case 'PassesClaimed':
        main.sold += event.data.passes;
        return;
      case 'FreePointAwarded':
        main.views += 1;
        return;
      case 'AdViewsReset':
        main.views = event.data.views;
        return;
      case 'MainDataEdited':
        main.cpm = event.data.cpm;
        main.donations = event.data.donations;
        main.startDate = event.data.startDate;
        return;
      case 'PointsPurchased':
        main.purchasesUsd = roundCents(main.purchasesUsd + event.data.amountUsd);
        return;
      case 'PurchaseReversed':
        main.purchasesUsd = roundCents(main.purchasesUsd - event.data.amountUsd);
        return;
      default:
        assertNever(event);
    }
  },
  writes(copy, out) {
    const changed = !sameMain(copy.main, copy.stored.main);
    if (changed) out.push({ op: 'main', main: copy.main });
    // The figures broadcast carries the countries too; browsers hear it before the batch's other news.
    if (changed || copy.countriesChanged) copy.live.unshift({ kind: 'mainData', main: copy.main, countriesChanged: copy.countriesChanged });
  },
});

/** Same figures (MainRecord is flat: every value is a number or a string). */
export function sameMain(a: MainRecord, b: MainRecord): boolean {
  for (const field in a) if (a[field as keyof MainRecord] !== b[field as keyof MainRecord]) return false;
  return Object.keys(a).length === Object.keys(b).length;
}
