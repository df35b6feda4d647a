import { describe, expect, it } from 'vitest';
import { packRow, unpackRow } from './packed-row';
import { copyRow, type UserRow } from './types';

const row: UserRow = {
  userId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  key: '0000002s',
  email: 'maría.lópez@example.com',
  priority: 'specialUser',
  points: 1234.5,
  passes: 7,
  buyed: 19.99,
  fullname: 'María "Mari" López\t😀',
  country: 'España',
  link: 'https://example.com/a?b=c&d=e',
  image: { path: 'a.webp', public_id: 'a', url: '/uploads/a.webp' },
  message: 'line one\nline two \\ end',
  createdAt: '2026-01-01T00:11:33.290Z',
  updatedAt: '2026-01-02T10:00:00.000Z',
};

describe('packed rows (memory read models)', () => {
  it('unpacks to the row packed, field for field, in the one field order', () => {
    for (const r of [row, { ...row, image: null, priority: '' as UserRow['priority'], points: 0, passes: 0, buyed: 0, fullname: '', message: '' }]) {
      const back = unpackRow(r.key, packRow(r));
      expect(back).toEqual(r);
      expect(Object.keys(back)).toEqual(Object.keys(copyRow(r)));
    }
  });

  it('keeps the key out of the packed text (the member number gives it back)', () => {
    expect(packRow(row)).not.toContain(row.key);
    expect(unpackRow('00000abc', packRow(row)).key).toBe('00000abc');
  });
});
