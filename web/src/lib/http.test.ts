import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, HttpError, refusalText } from './http';

afterEach(() => vi.unstubAllGlobals());

const answer = (status: number, body: string, headers: Record<string, string> = {}) =>
  vi.fn(async () => new Response(status === 204 ? null : body, { status, headers }));

describe('api.myData: the download', () => {
  it("keeps the bytes and the name the server's Content-Disposition gives, with the session cookie", async () => {
    const fetch = answer(200, '{"pointHistory":[]}', { 'Content-Type': 'application/json', 'Content-Disposition': 'attachment; filename="my-data.json"' });
    vi.stubGlobal('fetch', fetch);
    const file = await api.myData();
    expect(file.filename).toBe('my-data.json');
    expect(await file.blob.text()).toBe('{"pointHistory":[]}');
    expect(fetch).toHaveBeenCalledWith('/api/my-data', expect.objectContaining({ credentials: 'include' }));
  });

  it('a refusal is an HttpError with the server text', async () => {
    vi.stubGlobal('fetch', answer(401, '{"error":"Not signed in"}'));
    await expect(api.myData()).rejects.toMatchObject({ status: 401, body: { error: 'Not signed in' } });
  });
});

describe('the access calls', () => {
  it('send their JSON bodies and read a 204 as nothing', async () => {
    const fetch = answer(204, '');
    vi.stubGlobal('fetch', fetch);
    await expect(api.deleteMyAccount('pass1')).resolves.toBeUndefined();
    expect(fetch).toHaveBeenLastCalledWith('/api/my-account', expect.objectContaining({ method: 'DELETE', body: '{"password":"pass1"}' }));
    await api.confirmPasswordReset({ token: 't', password: 'new1' });
    expect(fetch).toHaveBeenLastCalledWith('/api/password-reset/confirm', expect.objectContaining({ method: 'POST', body: '{"token":"t","password":"new1"}' }));
    await api.eraseMember('u/1');
    expect(fetch).toHaveBeenLastCalledWith('/api/admin/members/u%2F1', expect.objectContaining({ method: 'DELETE' }));
  });
});

describe('the time machine calls', () => {
  it('ask for a replay at a moment, and read a refusal that says only `message` as its text', async () => {
    const fetch = answer(202, '{"id":"r1"}');
    vi.stubGlobal('fetch', fetch);
    await expect(api.createReplay({ at: '2026-03-01T10:00:00.000Z' })).resolves.toEqual({ id: 'r1' });
    expect(fetch).toHaveBeenLastCalledWith('/api/admin/replays', expect.objectContaining({ method: 'POST', body: '{"at":"2026-03-01T10:00:00.000Z"}' }));
    vi.stubGlobal('fetch', answer(400, '{"message":"Ese momento aún no ha llegado"}'));
    await expect(api.createReplay({ at: '2030-01-01T00:00:00.000Z' })).rejects.toMatchObject({ status: 400, body: { error: 'Ese momento aún no ha llegado' } });
  });

  it('read a replay like the public routes, searched and paged the same way', async () => {
    const fetch = answer(200, '{"total":0,"page":1,"pageSize":50,"items":[]}');
    vi.stubGlobal('fetch', fetch);
    await api.replayRanking('r/1', 'ana');
    expect(fetch).toHaveBeenLastCalledWith('/api/admin/replays/r%2F1/ranking?page=1&pageSize=50&q=ana', expect.objectContaining({ method: 'GET' }));
    await api.replayDiff('now', 'r1');
    expect(fetch).toHaveBeenLastCalledWith('/api/admin/replays/now/diff/r1', expect.objectContaining({ method: 'GET' }));
  });
});

describe('refusalText', () => {
  it("says the server's words; a 429 without words says the wait", () => {
    expect(refusalText(new HttpError(400, { error: 'Your current password is not correct' }))).toBe('Your current password is not correct');
    expect(refusalText(new HttpError(429, { error: 'Too many login attempts. Please try again in 1 minute.', retryAfterSeconds: 60 }))).toBe(
      'Too many login attempts. Please try again in 1 minute.',
    );
    expect(refusalText(new HttpError(429, { error: '', retryAfterSeconds: 12 }))).toBe('Too many attempts. Please wait 12 seconds and try again.');
    expect(refusalText(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
  });
});
