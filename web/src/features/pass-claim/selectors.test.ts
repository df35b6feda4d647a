import { describe, expect, it } from 'vitest';
import type { RootState } from '../../lib/store-types';
import { initialState } from '../../testing/fake-services';
import { selectAmountBounds } from './selectors';

const base = initialState();
function state(patch: { user: { chatCount: number }; main: { available: number } }): RootState {
  return {
    ...base,
    user: { ...base.user, user: { ...base.user.user, ...patch.user } },
    mainData: { ...base.mainData, data: { ...base.mainData.data, ...patch.main } },
  };
}

describe('selectors', () => {
  it('amount bounds: min 1, max = min(available, floor(points / 20))', () => {
    expect(selectAmountBounds(state({ user: { chatCount: 130 }, main: { available: 1000 } }))).toMatchObject({ min: 1, max: 6 });
    expect(selectAmountBounds(state({ user: { chatCount: 130 }, main: { available: 3 } }))).toMatchObject({ max: 3 });
    expect(selectAmountBounds(state({ user: { chatCount: 19 }, main: { available: 3 } }))).toMatchObject({ max: 0 });
  });
});
