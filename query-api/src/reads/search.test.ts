import { describe, expect, it } from 'vitest';
import { createMemoryReadModels, type ReadModelWrite, type UserRow } from '@pass/projector';
import { rowIndexSetList, sampleUserRow, searchText } from '@pass/projector/test-support';
import { searchUsers } from './search';

const row = (seq: number, over: Partial<UserRow>): UserRow =>
  sampleUserRow(seq, { passes: 1, createdAt: '2026-11-03T09:00:00.000Z', updatedAt: '2026-11-03T09:00:00.000Z', ...over });

/** A keyspace holding `rows` indexed as the projections index them. */
async function keyspaceWith(rows: UserRow[]) {
  const ks = await createMemoryReadModels().active();
  const writes: ReadModelWrite[] = rows.flatMap((r) => [
    { op: 'user' as const, row: r },
    { op: 'searchText' as const, key: r.key, text: searchText(r) },
    ...['users', ...rowIndexSetList(r)].map((set) => ({ op: 'zadd' as const, set: set as 'users', member: r.key, score: -r.passes })),
  ]);
  await ks.apply({ expectedCheckpoint: null, checkpoint: '1/1', writes });
  return ks;
}

describe('searchUsers with a word longer than the indexed prefixes', () => {
  it('finds the rows whose words start with the whole word, not only with its first 10 characters', async () => {
    const ks = await keyspaceWith([
      row(1, { passes: 3, fullname: 'Ann Liechtensteiner', country: 'Peru' }),
      row(2, { passes: 2, fullname: 'Bo Liechtenstone', country: 'Chile' }),
      row(3, { passes: 1, email: 'cy@liechtensteinmail.com' }),
    ]);
    const ids = async (q: string, registry: boolean, page = 1, pageSize = 10) => {
      const found = await searchUsers(ks, { q, allowEmail: registry, membersOnly: !registry, page, pageSize });
      return [found.total, found.rows.map((r) => [r.rank, r.row.userId])];
    };
    expect(await ids('liechtenst', false)).toEqual([2, [[1, 'u1'], [2, 'u2']]]);
    expect(await ids('Liechtenstein', false)).toEqual([1, [[1, 'u1']]]);
    expect(await ids('liechtenstein', true)).toEqual([2, [[1, 'u1'], [3, 'u3']]]);
    expect(await ids('liechtenstein', true, 2, 1)).toEqual([2, [[3, 'u3']]]);
    expect(await ids('liechtensteinx', true)).toEqual([0, []]);
  });
});
