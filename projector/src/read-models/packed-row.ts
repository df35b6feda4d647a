import type { UserRow } from './types';

/**
 * A user row as the memory keyspace keeps it: one JSON text of its values in a fixed order, its
 * key left out (the member's number gives it back, MemberIds). As an object of a dozen strings a
 * row takes about twice the memory, and rows are most of the standalone's (docs/architecture.md,
 * "Read side"). Rows are read a page or a batch at a time, so unpacking costs little; it is the
 * same JSON round trip the Redis adapter makes.
 */
export type PackedRow = string;

export function packRow(row: UserRow): PackedRow {
  return JSON.stringify([row.userId, row.email, row.priority, row.points, row.passes, row.buyed, row.fullname, row.country, row.link, row.image, row.message, row.createdAt, row.updatedAt]);
}

type Values = [string, string, UserRow['priority'], number, number, number, string, string, string, UserRow['image'], string, string, string];

/** The row `packRow` packed, with its key; every row comes out with the same shape (copyRow's field order). */
export function unpackRow(key: string, packed: PackedRow): UserRow {
  const [userId, email, priority, points, passes, buyed, fullname, country, link, image, message, createdAt, updatedAt] = JSON.parse(packed) as Values;
  return { userId, key, email, priority, points, passes, buyed, fullname, country, link, image, message, createdAt, updatedAt };
}
