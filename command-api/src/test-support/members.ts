import { expect } from 'vitest';
import type { Browser, Harness } from './harness';

let n = 0;
/** An e-mail no member of this test file has used yet. */
export const nextMemberEmail = () => `member${++n}@example.com`;

/** A browser that joined as a new member (201 asserted), the member as answered, and the e-mail used. */
export async function joinedMember(h: Harness, address = nextMemberEmail(), password = 'pass1') {
  const b: Browser = h.browser();
  const res = await b.request('POST', '/api/register-user', { email: address, password });
  expect(res.status).toBe(201);
  return { b, user: res.body as { id: string; email: string }, address };
}
