import { dayCounter } from '@pass/events/kernel';
import { formatNumber } from '../../lib/format';
import type { RootState } from '../../lib/store-types';

export const selectConnectedUsersText = (s: RootState) => formatNumber(s.connectedUsers.count);

/** The floating bar's "Day N": whole days since startDate; `now` is passed so the selector stays pure. */
export const selectDayCounter = (s: RootState, now: number) => dayCounter(s.mainData.data.startDate, now);
