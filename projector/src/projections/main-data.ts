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
export function evolveMainData(main: MainRecord, event: DomainEvent): MainRecord {
  switch (event.type) {
    case 'UserRegistered':
      return { ...main, userSeq: main.userSeq + 1 };
    case 'PassSupplySet':
      return { ...main, available: event.data.available };
    case 'PassesReserved':
      return { ...main, available: Math.max(0, main.available - event.data.passes) };
    case 'PassReservationReleased':
      return { ...main, available: main.available + event.data.passes };
    case 'PassesClaimed':
      return { ...main, sold: main.sold + event.data.passes };
    case 'FreePointAwarded':
      return { ...main, views: main.views + 1 };
    case 'AdViewsReset':
      return { ...main, views: event.data.views };
    case 'MainDataEdited':
      return { ...main, cpm: event.data.cpm, donations: event.data.donations, startDate: event.data.startDate };
    case 'PointsPurchased':
      return { ...main, purchasesUsd: roundCents(main.purchasesUsd + event.data.amountUsd) };
    case 'PurchaseReversed':
      return { ...main, purchasesUsd: roundCents(main.purchasesUsd - event.data.amountUsd) };
    default:
      return main;
  }
}

/** Money is summed in cents so 0.1 + 0.2 never shows as 0.30000000000000004. */
export function roundCents(usd: number): number {
  return Math.round(usd * 100) / 100;
}

/** Spec §1, as written: views × cpm + sum of all members' purchases + donations. */
export function fundsRaised(main: Pick<MainRecord, 'views' | 'cpm' | 'purchasesUsd' | 'donations'>): number {
  return roundCents(main.views * main.cpm + main.purchasesUsd + main.donations);
}
