import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router-dom';
import type { FailedImageJobs } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import { startApp } from '../../testing/fake-services';
import { adminActions } from './slice';
import AdminDashboardPage from './AdminDashboardPage';

afterEach(cleanup);

/** The dashboard of a signed-in admin whose server answers `failures` for the image jobs. */
async function dashboard(failures: FailedImageJobs) {
  const app = startApp({ adminId: 'a1' }, (h) => h.api.imageJobFailures.mockResolvedValue(failures));
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
