import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startApp } from '../../testing/fake-services';
import { rankingActions } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('start', () => {
  it('searches are debounced', async () => {
    const app = startApp();
    app.store.dispatch(rankingActions.rankingRequested('a'));
    app.store.dispatch(rankingActions.rankingRequested('an'));
    await vi.advanceTimersByTimeAsync(100);
    app.store.dispatch(rankingActions.rankingRequested('ann'));
    await vi.advanceTimersByTimeAsync(250);
    expect(app.api.ranking).toHaveBeenCalledTimes(1);
    expect(app.api.ranking).toHaveBeenCalledWith('ann');
    expect(app.state().users.ranking.loaded).toBe(true);
  });
});
