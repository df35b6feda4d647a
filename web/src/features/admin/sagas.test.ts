import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { startApp } from '../../testing/fake-services';
import { adminActions } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('admin', () => {
  it('login stores the admin id and opens the dashboard', async () => {
    const app = startApp();
    app.store.dispatch(adminActions.loginRequested({ email: 'owner@example.com', password: 'secret123' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.storage.get('adminId')).toBe('a1');
    expect(app.state().admin.authorized).toBe(true);
    expect(app.state().popup.showAds).toBe(false);
    expect(app.navigate).toHaveBeenCalledWith('/content/admin/dashboard', { replace: true });
  });

  it('a refused login shows the error', async () => {
    const app = startApp();
    app.api.adminLogin.mockRejectedValue(new HttpError(401, { error: 'Credenciales inválidas' }));
    app.store.dispatch(adminActions.loginRequested({ email: 'owner@example.com', password: 'wrongpass' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().admin.error).toBe('Credenciales inválidas');
    expect(app.storage.has('adminId')).toBe(false);
  });

  it('a stale stored admin id is verified and forgotten', async () => {
    const app = startApp({ adminId: 'old' }, (h) => h.api.verifyAdmin.mockResolvedValue({ id: 'old', email: '', authorized: false }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.storage.has('adminId')).toBe(false);
    expect(app.state().admin.storedId).toBe('');
  });

  it('dashboard actions call the API and refresh', async () => {
    const app = startApp({ adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(adminActions.deletePostRequested('u7'));
    app.store.dispatch(adminActions.deleteChatRequested());
    app.store.dispatch(adminActions.editMainDataRequested({ available: 10, cpm: 1, donations: 2, startDate: '01/01/2026' }));
    app.store.dispatch(adminActions.resetViewsRequested(0));
    await vi.advanceTimersByTimeAsync(300);
    expect(app.api.deleteMemberPost).toHaveBeenCalledWith('u7');
    expect(app.api.deleteChatMessages).toHaveBeenCalled();
    expect(app.api.editMainData).toHaveBeenCalledWith({ available: 10, cpm: 1, donations: 2, startDate: '01/01/2026' });
    expect(app.api.resetAdsViews).toHaveBeenCalledWith(0);
    expect(app.api.adminPosts).toHaveBeenCalled();
    // One outcome at a time: each success replaced the one before.
    expect(app.toasts).toEqual([{ kind: 'success', message: 'Vistas de anuncios actualizadas', id: 'admin-outcome' }]);
  });

  it('post search is debounced; history opens and closes', async () => {
    const app = startApp({ adminId: 'a1' }, (h) =>
      h.api.memberHistory.mockResolvedValue([
        { revision: 0, at: '2026-01-01T00:00:00Z', type: 'UserRegistered', description: 'Registered', pointsDelta: 10, passesDelta: 0, points: 10, passes: 0, actor: 'user:u7', correlationId: 'c', priority: '', card: { status: 'none' } },
      ]),
    );
    app.store.dispatch(adminActions.postsRequested('a'));
    app.store.dispatch(adminActions.postsRequested('ann'));
    await vi.advanceTimersByTimeAsync(250);
    expect(app.api.adminPosts).toHaveBeenCalledTimes(1);
    expect(app.api.adminPosts).toHaveBeenCalledWith('ann');
    app.store.dispatch(adminActions.historyRequested('u7'));
    expect(app.state().admin.history.loading).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().admin.history).toMatchObject({ userId: 'u7', loading: false });
    expect(app.state().admin.history.entries).toHaveLength(1);
    app.store.dispatch(adminActions.historyClosed());
    expect(app.state().admin.history.userId).toBe('');
  });

  it('projection status is polled while a rebuild runs', async () => {
    const app = startApp({ adminId: 'a1' });
    const status = (state: 'idle' | 'running') => ({
      position: '5', headPosition: '10', lagEvents: 5, lagSeconds: 1, lastError: null,
      rebuild: { state, processed: 5, total: 10, startedAt: null },
    });
    app.api.projections.mockResolvedValueOnce(status('running')).mockResolvedValueOnce(status('idle'));
    app.store.dispatch(adminActions.rebuildRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.rebuildProjections).toHaveBeenCalled();
    expect(app.state().admin.projections?.rebuild.state).toBe('running');
    await vi.advanceTimersByTimeAsync(2000);
    expect(app.state().admin.projections?.rebuild.state).toBe('idle');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(app.api.projections).toHaveBeenCalledTimes(2);
  });

  it('logout clears the stored flag and returns to the login', async () => {
    const app = startApp({ adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(adminActions.logoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.storage.has('adminId')).toBe(false);
    expect(app.state().admin.authorized).toBe(false);
    expect(app.state().popup.showAds).toBe(true);
    expect(app.navigate).toHaveBeenCalledWith('/content/admin', { replace: true });
  });

  it('a refusal replaces the success before it, and a refused form takes the last outcome away', async () => {
    const app = startApp({ adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(adminActions.editMainDataRequested({ available: 10, cpm: 1, donations: 2, startDate: '' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts.map((t) => t.message)).toEqual(['Datos principales actualizados']);
    app.api.resetAdsViews.mockRejectedValueOnce(new HttpError(400, { error: 'Las vistas no pueden ser negativas' }));
    app.store.dispatch(adminActions.resetViewsRequested(-1));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts.map((t) => t.message)).toEqual(['No se pudo completar la acción: Las vistas no pueden ser negativas']);
    app.store.dispatch(adminActions.formRefused());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts).toEqual([]);
  });

  it('says a failure without an answer in Spanish', async () => {
    const app = startApp({ adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(0);
    app.api.deleteChatMessages.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    app.store.dispatch(adminActions.deleteChatRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts.map((t) => t.message)).toEqual(['No se pudo completar la acción: El servidor no respondió']);
  });
});
