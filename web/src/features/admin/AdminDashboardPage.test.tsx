import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router-dom';
import type { FailedImageJobs, MemberStoryEntry } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import { startApp } from '../../testing/fake-services';
import { adminActions } from './slice';
import AdminDashboardPage from './AdminDashboardPage';

afterEach(cleanup);

/** The dashboard of a signed-in admin whose server answers `failures` for the image jobs. */
async function dashboard(failures: FailedImageJobs) {
  return await dashboardOf((h) => h.api.imageJobFailures.mockResolvedValue(failures));
}

/** The dashboard of a signed-in admin whose server `answers` as set up. */
async function dashboardOf(answers: Parameters<typeof startApp>[1]) {
  const app = startApp({ adminId: 'a1' }, answers);
  // The stored admin is verified by the start-up saga before the dashboard shows.
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

describe('admin dashboard: failed image jobs', () => {
  it('lists each job that failed every attempt: id, attempts and reason', async () => {
    await dashboard({
      queue: 'bullmq',
      total: 2,
      jobs: [
        { id: '41', failedAt: '2026-11-24T10:00:00.000Z', attempts: 3, reason: 'ENOSPC: no space left on device' },
        { id: '40', failedAt: '2026-11-24T09:00:00.000Z', attempts: 3, reason: 'Connection is closed.' },
      ],
    });
    const table = screen.getByRole('table', { name: 'Trabajos de imagen fallidos' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['41', expect.any(String), '3', 'ENOSPC: no space left on device']);
    expect(screen.getByRole('heading', { name: /Imágenes fallidas/ }).textContent).toContain('2');
  });

  it('says so when no job has run out of attempts, or when images are processed in-process', async () => {
    await dashboard({ queue: 'bullmq', total: 0, jobs: [] });
    expect(screen.getByText('Ningún trabajo ha agotado sus intentos.')).toBeTruthy();
    cleanup();
    await dashboard({ queue: 'in-process', total: 0, jobs: [] });
    expect(screen.getByText(/se procesan en este mismo proceso/)).toBeTruthy();
    expect(screen.queryByRole('table', { name: 'Trabajos de imagen fallidos' })).toBeNull();
  });
});

describe('admin dashboard: erasing a member', () => {
  const post = {
    userId: 'u7',
    fullname: 'Ana',
    email: 'ana@example.com',
    country: 'Spain',
    link: '',
    message: 'hola',
    imageUrl: null,
    passes: 1,
    points: 5,
    createdAt: '2026-01-02T00:00:00.000Z',
  };

  it('asks first, naming the member as the list does; after 204 the row shows the member as erased', async () => {
    const app = startApp({ adminId: 'a1' }, (h) => h.api.adminPosts.mockResolvedValue({ total: 1, page: 1, pageSize: 50, items: [post] as never }));
    await act(async () => {});
    render(
      <Provider store={app.store}>
        <MemoryRouter>
          <AdminDashboardPage />
        </MemoryRouter>
      </Provider>,
    );
    // The post search waits for its debounce.
    const erase = await screen.findByRole('button', { name: 'Borrar miembro Ana' }, { timeout: 2000 });
    fireEvent.click(erase);
    const dialog = screen.getByRole('dialog', { name: '¿Borrar al miembro Ana?' });
    expect(dialog.textContent).toContain('u7');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(app.api.eraseMember).not.toHaveBeenCalled();
    fireEvent.click(erase);
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Borrar miembro' }));
    await act(async () => {});
    expect(app.api.eraseMember).toHaveBeenCalledWith('u7');
    expect(screen.getByText('Borrado')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Borrar miembro Ana' })).toBeNull();
    expect(app.toasts).toContainEqual(expect.objectContaining({ kind: 'success', message: 'Miembro borrado' }));
  });

  it('a refused erasure is a toast and the row stays', async () => {
    const app = startApp({ adminId: 'a1' }, (h) => {
      h.api.adminPosts.mockResolvedValue({ total: 1, page: 1, pageSize: 50, items: [post] as never });
      h.api.eraseMember.mockRejectedValue(new HttpError(404, { error: 'Este miembro no existe' }));
    });
    await act(async () => {});
    app.store.dispatch(adminActions.eraseMemberRequested('u7'));
    await act(async () => {});
    expect(app.toasts).toContainEqual(expect.objectContaining({ kind: 'error', message: 'No se pudo completar la acción: Este miembro no existe' }));
    expect(app.state().admin.erased).toEqual([]);
  });
});

describe("admin dashboard: a member's story", () => {
  const entry = (revision: number, description: string, card: MemberStoryEntry['card']): MemberStoryEntry => ({
    revision,
    at: '2026-11-03T10:00:00.000Z',
    type: 'X',
    description,
    pointsDelta: 0,
    passesDelta: 0,
    points: 10 + revision,
    passes: revision,
    actor: 'user:u7',
    correlationId: 'c',
    priority: revision > 0 ? 'normalUser' : '',
    card,
  });
  const shown = { status: 'shown', fullname: 'Ana', country: 'Spain', link: 'https://example.com/ana', message: 'Hola', imageUrl: '/uploads/a.webp' } as const;

  it('opens on the newest entry and steps back to the card as it was after an earlier event', async () => {
    const app = await dashboard({ queue: 'in-process', total: 0, jobs: [] });
    app.api.memberHistory.mockResolvedValue([
      entry(0, 'Registrado', { status: 'none' }),
      entry(1, 'Publicó una tarjeta como Ana (Spain)', shown),
      entry(2, 'Miembro borrado', { status: 'erased' }),
    ]);
    await act(async () => void app.store.dispatch(adminActions.historyRequested('u7')));
    const story = screen.getByRole('region', { name: 'Estado tras el evento 3 de 3' });
    expect(story.textContent).toContain('Tarjeta borrada');
    expect(within(story).getByRole('button', { name: 'Siguiente' })).toHaveProperty('disabled', true);

    fireEvent.click(screen.getByRole('button', { name: 'Ver el estado tras el evento 2' }));
    const step2 = screen.getByRole('region', { name: 'Estado tras el evento 2 de 3' });
    expect(within(step2).getByRole('img', { name: 'Imagen de la tarjeta de Ana' }).getAttribute('src')).toBe('/uploads/a.webp');
    expect(step2.textContent).toContain('https://example.com/ana');
    expect(step2.textContent).toContain('normalUser');

    fireEvent.click(within(step2).getByRole('button', { name: 'Anterior' }));
    const step1 = screen.getByRole('region', { name: 'Estado tras el evento 1 de 3' });
    expect(step1.textContent).toContain('Sin tarjeta publicada.');
    expect(step1.textContent).toContain('ninguna');
    expect(within(step1).getByRole('button', { name: 'Anterior' })).toHaveProperty('disabled', true);
  });
});

describe('admin dashboard: projections', () => {
  it("shows who leads the projectors' group, with the epoch, and what each projector does", async () => {
    await dashboardOf((h) =>
      h.api.projections.mockResolvedValue({
        position: '5/5',
        headPosition: '5/5',
        lagEvents: 0,
        lagSeconds: 0,
        lastError: null,
        rebuild: { state: 'idle', processed: 0, total: 0, startedAt: null },
        leadership: {
          holder: 'projector-2',
          epoch: 8,
          members: [
            { instance: 'projector-1', role: 'standby', seenAt: '2026-12-06T10:00:00.000Z' },
            { instance: 'projector-2', role: 'leader', seenAt: '2026-12-06T10:00:00.000Z' },
            { instance: 'projector-3', role: 'builder', seenAt: '2026-12-06T10:00:00.000Z' },
          ],
        },
      }),
    );
    expect(screen.getByText('projector-2 (época 8)')).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Proyectores' })).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'projector-1: en espera',
      'projector-2: líder',
      'projector-3: construyendo una versión nueva',
    ]);
  });

  it('says so when no projector leads, and shows nothing of a group in standalone', async () => {
    const base = { position: '5/5', headPosition: '5/5', lagEvents: 0, lagSeconds: 0, lastError: null, rebuild: { state: 'idle' as const, processed: 0, total: 0, startedAt: null } };
    await dashboardOf((h) => h.api.projections.mockResolvedValue({ ...base, leadership: { holder: null, epoch: 3, members: [] } }));
    expect(screen.getByText('Ningún proyector lidera')).toBeTruthy();
    cleanup();
    await dashboard({ queue: 'in-process', total: 0, jobs: [] });
    expect(screen.queryByText('Líder')).toBeNull();
  });
});
