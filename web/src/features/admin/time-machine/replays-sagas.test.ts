import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../../lib/http';
import { sampleMainData, sampleProgress, startApp } from '../../../testing/fake-services';
import { REPLAY_POLL_LIMIT, REPLAY_POLL_MS } from './replays-sagas';
import { timeMachineActions as actions } from './replays-slice';
import { ADMIN_MESSAGES, type ReplayStatus } from '@pass/events/kernel';

beforeEach(() => vi.useFakeTimers({ now: new Date('2026-03-10T12:00:00.000Z') }));
afterEach(() => vi.useRealTimers());

const status = (state: ReplayStatus['status'], progress: number): ReplayStatus => ({
  id: 'r1', status: state, progress, at: '2026-03-01T10:00:00.000Z', position: null, events: Math.round(progress * 100), startedAt: '2026-03-10T12:00:00.000Z', error: null,
});

/** A signed-in admin's store with the time machine on screen. */
async function onScreen(setup?: Parameters<typeof startApp>[1]) {
  const app = startApp({ adminId: 'a1' }, setup);
  await vi.advanceTimersByTimeAsync(0);
  app.store.dispatch(actions.entered());
  return app;
}

const ask = (app: Awaited<ReturnType<typeof onScreen>>) =>
  app.store.dispatch(actions.replayRequested({ kind: 'date', local: '2026-03-01T10:00' }));

describe('time machine: polling a replay', () => {
  it('shows its progress while it runs, then its bodies once ready, and asks no more', async () => {
    const app = await onScreen((h) => {
      h.api.replayStatus.mockResolvedValueOnce(status('running', 0.25)).mockResolvedValueOnce(status('running', 0.75)).mockResolvedValue(status('ready', 1));
      h.api.replayMainData.mockResolvedValue({ ...sampleMainData, sold: 7 });
    });
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.createReplay).toHaveBeenCalledWith({ at: new Date(2026, 2, 1, 10, 0).toISOString() });
    expect(app.state().timeMachine.replays[0]).toMatchObject({ id: 'r1', status: 'running', progress: 0.25 });
    expect(app.state().timeMachine.shown).toBeNull();
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(app.state().timeMachine.replays[0]?.progress).toBe(0.75);
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(app.state().timeMachine.replays[0]?.status).toBe('ready');
    expect(app.state().timeMachine.shown?.mainData.sold).toBe(7);
    expect(app.api.replayRanking).toHaveBeenCalledWith('r1', '');
    await vi.advanceTimersByTimeAsync(10 * REPLAY_POLL_MS);
    expect(app.api.replayStatus).toHaveBeenCalledTimes(3);
    expect(app.state().timeMachine.error).toBe('');
  });

  it('stops when the section leaves the screen and goes on when it is back', async () => {
    const app = await onScreen((h) => h.api.replayStatus.mockResolvedValue(status('running', 0.5)));
    ask(app);
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    const asked = app.api.replayStatus.mock.calls.length;
    app.store.dispatch(actions.left());
    await vi.advanceTimersByTimeAsync(20 * REPLAY_POLL_MS);
    expect(app.api.replayStatus).toHaveBeenCalledTimes(asked);
    app.api.replayStatus.mockResolvedValue(status('ready', 1));
    app.store.dispatch(actions.entered());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.replays[0]?.status).toBe('ready');
    expect(app.state().timeMachine.shown).not.toBeNull();
  });

  it('gives up after a bounded number of polls and says so', async () => {
    const app = await onScreen((h) => h.api.replayStatus.mockResolvedValue(status('running', 0.1)));
    ask(app);
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_LIMIT * REPLAY_POLL_MS + 10_000);
    expect(app.api.replayStatus).toHaveBeenCalledTimes(REPLAY_POLL_LIMIT);
    expect(app.state().timeMachine.error).toBe('La reconstrucción sigue en curso tras demasiado tiempo; consúltala de nuevo más tarde.');
    // "Consultar" polls again.
    app.api.replayStatus.mockResolvedValue(status('ready', 1));
    app.store.dispatch(actions.watchRequested('r1'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.shown).not.toBeNull();
  });

  it('a 409 on the bodies means it still runs: polled again, no error shown', async () => {
    const app = await onScreen((h) => {
      h.api.replayStatus.mockResolvedValue(status('ready', 1));
      h.api.replayMainData.mockRejectedValueOnce(new HttpError(409, { error: 'La reconstrucción aún está en curso' }));
    });
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.shown).toBeNull();
    expect(app.state().timeMachine.error).toBe('');
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(app.api.replayStatus).toHaveBeenCalledTimes(2);
    expect(app.state().timeMachine.shown?.mainData).toEqual(sampleMainData);
    expect(app.state().timeMachine.error).toBe('');
  });

  it('a failed replay says so in Spanish and is not polled again', async () => {
    const app = await onScreen((h) => h.api.replayStatus.mockResolvedValue(status('failed', 0.4)));
    ask(app);
    await vi.advanceTimersByTimeAsync(5 * REPLAY_POLL_MS);
    expect(app.api.replayStatus).toHaveBeenCalledTimes(1);
    expect(app.state().timeMachine.replays[0]?.status).toBe('failed');
    expect(app.state().timeMachine.error).toBe('La reconstrucción falló. Prueba de nuevo o elige otro momento.');
  });

  it('a deleted replay is no longer polled nor listed', async () => {
    const app = await onScreen((h) => h.api.replayStatus.mockResolvedValue(status('running', 0.5)));
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(actions.deleteRequested('r1'));
    await vi.advanceTimersByTimeAsync(10 * REPLAY_POLL_MS);
    expect(app.api.deleteReplay).toHaveBeenCalledWith('r1');
    expect(app.api.replayStatus).toHaveBeenCalledTimes(1);
    expect(app.state().timeMachine.replays).toEqual([]);
    expect(app.state().timeMachine.error).toBe('');
  });
});

describe('time machine: refusals in Spanish', () => {
  it("shows the server's words for a moment it refuses", async () => {
    const app = await onScreen((h) => h.api.createReplay.mockRejectedValue(new HttpError(400, { error: 'Ese momento es anterior al primer evento' })));
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine).toMatchObject({ creating: false, error: 'Ese momento es anterior al primer evento', replays: [] });
  });

  it("a 429 shows the server's words, else asks to delete a kept replay first", async () => {
    const app = await onScreen((h) => h.api.createReplay
      .mockRejectedValueOnce(new HttpError(429, { error: ADMIN_MESSAGES.replayTooMany }))
      .mockRejectedValueOnce(new HttpError(429, { error: '' })));
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.error).toBe(ADMIN_MESSAGES.replayTooMany);
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.error).toBe('Hay demasiadas reconstrucciones guardadas: elimina alguna antes de pedir otra.');
  });

  it('no answer at all, or a status without words, is said in Spanish too', async () => {
    const app = await onScreen((h) => h.api.createReplay.mockRejectedValueOnce(new TypeError('Failed to fetch')).mockRejectedValueOnce(new HttpError(500, { error: '' })));
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.error).toBe('El servidor no respondió.');
    ask(app);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.error).toBe('Error 500 del servidor.');
  });

  it('a day that has not come yet is refused before asking the server', async () => {
    const app = await onScreen();
    app.store.dispatch(actions.replayRequested({ kind: 'day', day: 400 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.createReplay).not.toHaveBeenCalled();
    expect(app.state().timeMachine.error).toBe('El día 400 aún no ha llegado: hoy es el día 68.');
  });

  it('comparing with a replay that still runs (409) says to wait, in the server\'s words when it sends some', async () => {
    const app = await onScreen((h) => h.api.replayDiff
      .mockRejectedValueOnce(new HttpError(409, { error: ADMIN_MESSAGES.replayRunning }))
      .mockRejectedValueOnce(new HttpError(409, { error: '' })));
    app.store.dispatch(actions.comparisonRequested({ from: 'r1', to: 'now' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.replayDiff).toHaveBeenCalledWith('r1', 'now');
    expect(app.state().timeMachine.comparison).toMatchObject({ loading: false, error: ADMIN_MESSAGES.replayRunning });
    app.store.dispatch(actions.comparisonRequested({ from: 'r1', to: 'now' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.comparison).toMatchObject({ loading: false, error: 'Esa reconstrucción aún está en curso: espera a que termine.' });
  });
});

describe('time machine: the progress toward the goal', () => {
  it('is read when the section shows, and again each time it is back', async () => {
    const app = startApp({ adminId: 'a1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.progress).not.toHaveBeenCalled();
    app.store.dispatch(actions.entered());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.progress).toEqual({ view: sampleProgress, failed: false });
    app.store.dispatch(actions.left());
    app.store.dispatch(actions.entered());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.api.progress).toHaveBeenCalledTimes(2);
  });

  it('says so when it cannot be read', async () => {
    const app = await onScreen((h) => h.api.progress.mockRejectedValue(new TypeError('Failed to fetch')));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().timeMachine.progress).toEqual({ view: null, failed: true });
    expect(app.logError).toHaveBeenCalledWith('Fetching the progress failed', expect.any(TypeError));
  });
});
