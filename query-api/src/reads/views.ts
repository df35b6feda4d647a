import { maskEmail, type AdminPostEntry, type RankingEntry, type RegistryRow } from '@pass/events';
import type { UserRow } from '@pass/projector';

export function toRankingEntry(rank: number, row: UserRow): RankingEntry {
  return {
    rank,
    userId: row.userId,
    fullname: row.fullname,
    country: row.country,
    passes: row.passes,
    link: row.link,
    imageUrl: row.image?.url ?? null,
    message: row.message,
    priority: row.priority,
    createdAt: row.createdAt,
  };
}

/** A registry row; the e-mail stays whole only for its owner and for admins. */
export function toRegistryRow(row: UserRow, viewer: { userId: string | null; admin: boolean }): RegistryRow {
  const seesEmail = viewer.admin || viewer.userId === row.userId;
  return {
    userId: row.userId,
    createdAt: row.createdAt,
    member: row.fullname || (seesEmail ? row.email : maskEmail(row.email)),
    passes: row.passes,
    points: row.points,
    priority: row.priority,
  };
}

export function toAdminPost(rank: number, row: UserRow): AdminPostEntry {
  return { ...toRankingEntry(rank, row), email: row.email, points: row.points };
}
