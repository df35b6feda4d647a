import { rankKey } from '../read-models/search';
import type { UserRow } from '../read-models/types';

/** A registry/ranking row as the projections store it: member `u<seq>` with no card, then `over`. */
export function sampleUserRow(seq: number, over: Partial<UserRow> = {}): UserRow {
  return {
    userId: `u${seq}`,
    key: rankKey(seq),
    email: `user${seq}@example.com`,
    priority: '',
    points: 10,
    passes: 0,
    buyed: 0,
    fullname: '',
    country: '',
    link: '',
    image: null,
    message: '',
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    ...over,
  };
}
