import { dayCounter } from '@pass/events/kernel';
import { formatNumber } from '../../lib/format';
import type { RootState } from '../../lib/store-types';

export const selectConnectedUsersText = (state: RootState) => formatNumber(state.connectedUsers.count);

/** The floating bar's "Day N": whole days since startDate; `now` is passed so the selector stays pure. */
export const selectDayCounter = (state: RootState, now: number) => dayCounter(state.mainData.data.startDate, now);
