import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router-dom';
import { ADMIN_MESSAGES, type ChatHistory, type CountriesView, type Page, type RankingEntry, type ReplayDiff, type ReplayStatus } from '@pass/events/kernel';
import { HttpError } from '../../../lib/http';
import { initialState, sampleMainData, sampleProgress, startApp, type Harness } from '../../../testing/fake-services';
import AdminDashboardPage from '../AdminDashboardPage';

afterEach(cleanup);

const AT = '2026-03-01T10:00:00.000Z';
const status = (state: ReplayStatus['status'], progress: number): ReplayStatus => ({
  id: 'r1', status: state, progress, at: AT, position: '900', events: 900, startedAt: '2026-03-10T12:00:00.000Z', error: null,
});

/** The dashboard of a signed-in admin, the site started on 01/01/2026. */
async function dashboard(setup?: (h: Harness) => void) {
  const app = startApp({ adminId: 'a1' }, setup, { mainData: { ...initialState().mainData, data: sampleMainData } });
  await act(async () => {});
  render(
    <Provider store={app.store}>
      <MemoryRouter>
        <AdminDashboardPage />
      </MemoryRouter>
    </Provider>,
  );
  await act(async () => {});
  return app;
}

const section = () => screen.getByRole('region', { name: 'Máquina del tiempo' });

function pickDate(local: string) {
  fireEvent.click(within(section()).getByRole('radio', { name: 'Fecha y hora' }));
  fireEvent.change(within(section()).getByLabelText('Fecha y hora (hora local)'), { target: { value: local } });
  fireEvent.click(within(section()).getByRole('button', { name: 'Reconstruir' }));
}

const entry = (rank: number, fullname: string, country: string, passes: number): RankingEntry => ({
  rank, userId: `u${rank}`, fullname, country, passes, link: '', imageUrl: null, message: '', priority: 'normalUser', createdAt: '2026-01-02T00:00:00.000Z',
});

describe('time machine: picking the moment', () => {
  it('sends the end of day N, a date and time, or a position', async () => {
    const app = await dashboard((h) => {
      h.api.replayStatus.mockResolvedValue(status('running', 0));
      h.api.createReplay.mockResolvedValueOnce({ id: 'r1' }).mockResolvedValueOnce({ id: 'r2' }).mockResolvedValueOnce({ id: 'r3' });
    });
    fireEvent.click(within(section()).getByRole('radio', { name: 'Día N' }));
    expect(within(section()).getByText('El día 0 es la fecha de inicio, 01/01/2026.')).toBeTruthy();
    fireEvent.change(within(section()).getByLabelText('Día'), { target: { value: '3' } });
    fireEvent.click(within(section()).getByRole('button', { name: 'Reconstruir' }));
    await act(async () => {});
    expect(app.api.createReplay).toHaveBeenLastCalledWith({ at: '2026-01-04T23:59:59.999Z' });

    pickDate('2026-02-14T18:45');
    await act(async () => {});
    expect(app.api.createReplay).toHaveBeenLastCalledWith({ at: new Date(2026, 1, 14, 18, 45).toISOString() });

    fireEvent.click(within(section()).getByRole('radio', { name: 'Posición del registro' }));
    fireEvent.change(within(section()).getByLabelText('Posición'), { target: { value: '1234' } });
    fireEvent.click(within(section()).getByRole('button', { name: 'Reconstruir' }));
    await act(async () => {});
    expect(app.api.createReplay).toHaveBeenLastCalledWith({ position: '1234' });
  });

  it('shows the progress while the replay runs', async () => {
    await dashboard((h) => h.api.replayStatus.mockResolvedValue(status('running', 0.4)));
    pickDate('2026-03-01T10:00');
    const bar = await screen.findByRole('progressbar');
    expect((bar as HTMLProgressElement).value).toBe(0.4);
    expect(within(section()).getByText(/40 %/)).toBeTruthy();
    expect(within(section()).getByText(/^Reconstruyendo/)).toBeTruthy();
  });

  it('a refusal shows in the section: too many replays kept', async () => {
    await dashboard((h) => h.api.createReplay.mockRejectedValue(new HttpError(429, { error: '' })));
    pickDate('2026-03-01T10:00');
    expect((await within(section()).findByRole('alert')).textContent).toBe('Hay demasiadas reconstrucciones guardadas: elimina alguna antes de pedir otra.');
  });
});

describe('time machine: the site as it was', () => {
  const countries: CountriesView = {
    distinct: 6,
    top: [
      { country: 'Chile', users: 2 },
      { country: 'Spain', users: 9 },
      { country: 'Peru', users: 1 },
      { country: 'Mexico', users: 7 },
      { country: 'Cuba', users: 3 },
      { country: 'Brazil', users: 5 },
    ],
  };
  const ranking: Page<RankingEntry> = { total: 2, page: 1, pageSize: 50, items: [entry(2, 'Bea', 'Peru', 3), entry(1, 'Ana', 'Spain', 8)] };
  const chat: ChatHistory = {
    total: 12,
    messages: [{ id: 'm1', userId: 'u1', nickname: 'Ana', message: 'hola a todos', priority: 'normalUser', sentAt: '2026-03-01T09:00:00.000Z' }],
  };

  it('shows the figures, the country top 5, the ranking with its search and the chat from the replay', async () => {
    const app = await dashboard((h) => {
      h.api.replayMainData.mockResolvedValue({ ...sampleMainData, available: 900, sold: 100, members: 40, fundsRaised: 1234.5 });
      h.api.replayCountries.mockResolvedValue(countries);
      h.api.replayRanking.mockResolvedValue(ranking);
      h.api.replayChatMessages.mockResolvedValue(chat);
    });
    pickDate('2026-03-01T10:00');
    await screen.findByRole('heading', { name: /^Así estaba el / });
    const figures = within(screen.getByLabelText('Cifras en ese momento'));
    const figure = (label: string) => figures.getByText(label).nextElementSibling?.textContent;
    expect(figure('Pases tomados')).toBe('100');
    expect(figure('Pases disponibles')).toBe('900');
    expect(figure('Fondos recaudados')).toBe('$1,234.50');
    expect(figure('Día')).toBe('59');

    const top = within(screen.getByRole('list', { name: 'Los 5 mejores países' })).getAllByRole('listitem');
    expect(top.map((li) => li.textContent)).toEqual(['Spain 9', 'Mexico 7', 'Brazil 5', 'Cuba 3', 'Chile 2']);

    const table = screen.getByRole('table', { name: 'Clasificación en ese momento' });
    const names = () => within(table).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[1]?.textContent);
    expect(names()).toEqual(['Ana', 'Bea']);
    app.api.replayRanking.mockResolvedValue({ ...ranking, total: 1, items: [entry(2, 'Bea', 'Peru', 3)] });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Buscar en la clasificación por nombre o país' }), { target: { value: 'pe' } });
    await waitFor(() => expect(names()).toEqual(['Bea']));
    expect(app.api.replayRanking).toHaveBeenLastCalledWith('r1', 'pe');

    const messages = within(screen.getByRole('list', { name: 'Mensajes del chat en ese momento' })).getAllByRole('listitem');
    expect(messages[0]?.textContent).toContain('Ana: hola a todos');
  });

  it('compares a replay with now, or two replays, and lists the biggest movers', async () => {
    const mover = (userId: string, name: string, rankThen: number | null, rankNow: number, passesThen: number, passesNow: number) =>
      ({ userId, name, rankThen, rankNow, passesThen, passesNow });
    const diff: ReplayDiff = {
      then: { id: 'r1', at: AT, position: '900' },
      now: { id: 'now', at: null, position: '1200' },
      members: { then: 40, now: 44, moved: 4, joined: 5, left: 1, joinedSample: [mover('u7', 'Eva', null, 4, 0, 3)], leftSample: [] },
      passes: { then: 10, now: 25, moved: 15 },
      points: { then: 300, now: 280, moved: -20 },
      funds: { then: 1, now: 3.5, moved: 2.5 },
      movers: [mover('u2', 'Bea', 9, 2, 1, 6), mover('u7', 'Eva', null, 4, 0, 3)],
      moversAmong: 1000,
    };
    const app = await dashboard((h) => h.api.replayDiff.mockResolvedValue(diff));
    pickDate('2026-03-01T10:00');
    await screen.findByRole('heading', { name: /^Así estaba el / });
    const compare = screen.getByRole('form', { name: 'Comparar dos momentos' });
    expect((within(compare).getByLabelText('Después') as HTMLSelectElement).value).toBe('now');
    fireEvent.click(within(compare).getByRole('button', { name: 'Comparar' }));
    const movers = await screen.findByRole('table', { name: 'Los que más se movieron en la clasificación' });
    expect(app.api.replayDiff).toHaveBeenCalledWith('r1', 'now');
    const rows = within(movers).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));
    expect(rows).toEqual([['Bea', '9', '2', '1', '6'], ['Eva', '—', '4', '0', '3']]);
    expect(screen.getByText(/^Antes: .* · Después: Ahora$/)).toBeTruthy();
    const facts = within(screen.getByLabelText('Cambios entre los dos momentos'));
    expect(facts.getByText('Pases').nextElementSibling?.textContent).toBe('10 → 25 (+15)');
    expect(facts.getByText('Puntos').nextElementSibling?.textContent).toBe('300 → 280 (-20)');
    expect(facts.getByText('Fondos').nextElementSibling?.textContent).toBe('$1.00 → $3.50 (+$2.50)');
    expect(facts.getByText('Miembros').nextElementSibling?.textContent).toBe('40 → 44 (+4)');
    expect(facts.getByText('Miembros nuevos').nextElementSibling?.textContent).toBe('5: Eva y 4 más');
    expect(facts.getByText('Miembros que se fueron').nextElementSibling?.textContent).toBe('1');

    // Two past moments: the newer replay first, then the older one.
    app.api.createReplay.mockResolvedValueOnce({ id: 'r2' });
    app.api.replayStatus.mockImplementation(async (id: string) => ({ ...status('ready', 1), id, at: id === 'r2' ? '2026-03-05T10:00:00.000Z' : AT }));
    pickDate('2026-03-05T10:00');
    await screen.findByRole('heading', { name: /^Así estaba el 05\/03\/2026/ });
    const before = within(compare).getByLabelText('Antes') as HTMLSelectElement;
    expect([...before.options].map((o) => o.value)).toEqual(['r2', 'r1', 'now']);
    fireEvent.change(before, { target: { value: 'r1' } });
    fireEvent.change(within(compare).getByLabelText('Después'), { target: { value: 'r2' } });
    fireEvent.click(within(compare).getByRole('button', { name: 'Comparar' }));
    await act(async () => {});
    expect(app.api.replayDiff).toHaveBeenLastCalledWith('r1', 'r2');
  });

  it("a comparison the server refuses shows the server's words", async () => {
    await dashboard((h) => h.api.replayDiff.mockRejectedValue(new HttpError(409, { error: ADMIN_MESSAGES.replayFailed })));
    pickDate('2026-03-01T10:00');
    await screen.findByRole('heading', { name: /^Así estaba el / });
    const compare = screen.getByRole('form', { name: 'Comparar dos momentos' });
    fireEvent.click(within(compare).getByRole('button', { name: 'Comparar' }));
    expect((await within(section()).findByRole('alert')).textContent).toBe(ADMIN_MESSAGES.replayFailed);
  });
});

describe('time machine: the progress toward the goal', () => {
  // The third day of the run (01/01/2026): the counter reads 2, the pace needs 3 days' worth.
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-03T15:00:00.000Z') }));
  afterEach(() => vi.useRealTimers());

  const block = () => screen.getByRole('region', { name: 'Progreso hacia la meta' });
  const facts = () => within(block()).getAllByRole('definition').map((dd) => [dd.previousElementSibling?.textContent, dd.textContent]);

  it("sums up today from GET /api/progress: the day, the passes taken, the share of the goal, today's pace", async () => {
    const app = await dashboard();
    expect(app.api.progress).toHaveBeenCalledTimes(1);
    expect(facts()).toEqual([
      ['Día', '2 de 365'],
      ['Pases tomados', '25 de 1,000,000'],
      ['De la meta', 'menos del 0.1%'],
      ['El ritmo pide hoy', '8,220'],
    ]);
    expect(within(block()).getByRole('img', { name: /^Gráfico de pases tomados por día frente al ritmo que pide la meta/ })).toBeTruthy();
  });

  it('without a start date there is no day nor pace yet', async () => {
    await dashboard((h) => h.api.progress.mockResolvedValue({ ...sampleProgress, startDate: '', days: [] }));
    expect(facts()).toEqual([
      ['Día', 'Sin fecha de inicio'],
      ['Pases tomados', '0 de 1,000,000'],
      ['De la meta', '0%'],
      ['El ritmo pide hoy', '—'],
    ]);
  });

  it('says so when it cannot be read', async () => {
    await dashboard((h) => h.api.progress.mockRejectedValue(new TypeError('Failed to fetch')));
    expect(within(block()).getByRole('status').textContent).toBe('No se pudo cargar el progreso. Recarga la página para intentarlo de nuevo.');
  });
});
