import type { DomainEvent } from '@pass/events';
import type { MainRecord } from '../read-models/types';

/**
 * Site figures. `views` grows by one per FreePointAwarded: a free point is earned by watching
 * the ad banner of /content/check for its whole countdown, so each award is one ad view; an
 * admin's AdViewsReset sets the number outright. `available` follows the passes pool: set by
 * PassSupplySet, lowered by each reservation, raised again when one is released. `sold` counts
 * passes members actually received (PassesClaimed). Members and chat count are kept by the
 * ranking and chat projections.
 */
export function evolveMainData(main: MainRecord, event: DomainEvent): void {
  // Updates the batch's working copy in place (one event at a time, no object per event).
  switch (event.type) {
    case 'UserRegistered':
      main.userSeq += 1;
      return;
    case 'PassSupplySet':
      main.available = event.data.available;
      return;
    case 'PassesReserved':
      main.available = Math.max(0, main.available - event.data.passes);
      return;
    case 'PassReservationReleased':
      main.available += event.data.passes;
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
  }
}

/** Same figures (MainRecord is flat: every value is a number or a string). */
export function sameMain(a: MainRecord, b: MainRecord): boolean {
  for (const k in a) if (a[k as keyof MainRecord] !== b[k as keyof MainRecord]) return false;
  return Object.keys(a).length === Object.keys(b).length;
}

/** Money is summed in cents so 0.1 + 0.2 never shows as 0.30000000000000004. */
export function roundCents(usd: number): number {
  return Math.round(usd * 100) / 100;
}

/** Spec §1, as written: views × cpm + sum of all members' purchases + donations. */
export function fundsRaised(main: Pick<MainRecord, 'views' | 'cpm' | 'purchasesUsd' | 'donations'>): number {
  return roundCents(main.views * main.cpm + main.purchasesUsd + main.donations);
}
