import { fundsRaised, type ReplayDiff, type ReplayDiffSide, type ReplayFigure, type ReplayMover } from '@pass/events';
import type { Keyspace, UserRow } from '@pass/projector';
import { toRegistryRow } from '../../reads/views';

/** Movers are looked for among this many of the top of each ranking (two reads, whatever the site's size). */
export const MOVERS_AMONG = 1_000;
/** Movers and joined/left members named in a diff. */
const SHOWN = 20;

const ADMIN_VIEW = { userId: null, admin: true };
/** How the admin's registry names a member: their card's name, else their e-mail. */
const nameOf = (row: UserRow) => toRegistryRow(row, ADMIN_VIEW).member;

const figure = (then: number, now: number): ReplayFigure => ({ then, now, moved: Math.round((now - then) * 100) / 100 });

/** Every member id of a keyspace and the points they hold; reads each row once. */
async function membersOf(keyspace: Keyspace): Promise<{ ids: Set<string>; points: number }> {
  const ids = new Set<string>();
  let points = 0;
  for await (const rows of keyspace.storedRows()) {
    for (const row of rows) {
      ids.add(row.userId);
      points += row.points;
    }
  }
  return { ids, points };
}

/** The first SHOWN members of `ids` that `others` lacks, named from `keyspace`, and how many there are in all. */
async function missingFrom(ids: Set<string>, others: Set<string>, keyspace: Keyspace, then: boolean): Promise<{ count: number; sample: ReplayMover[] }> {
  let count = 0;
  const sample: ReplayMover[] = [];
  for (const id of ids) {
    if (others.has(id)) continue;
    count++;
    if (sample.length >= SHOWN) continue;
    const row = await keyspace.userById(id);
    if (!row) continue;
    const side = { rank: null, passes: row.passes };
    sample.push(mover(row, then ? side : { rank: null, passes: 0 }, then ? { rank: null, passes: 0 } : side));
  }
  return { count, sample };
}

function mover(row: UserRow, then: { rank: number | null; passes: number }, now: { rank: number | null; passes: number }): ReplayMover {
  return { userId: row.userId, name: nameOf(row), rankThen: then.rank, rankNow: now.rank, passesThen: then.passes, passesNow: now.passes };
}

/** The top MOVERS_AMONG of a ranking: rank and row by member. */
async function topOf(keyspace: Keyspace): Promise<Map<string, { rank: number; row: UserRow }>> {
  const page = await keyspace.users({ membersOnly: true, sets: [], offset: 0, limit: MOVERS_AMONG });
  return new Map(page.rows.map((r) => [r.row.userId, { rank: r.rank, row: r.row }]));
}

/** Members whose rank moved most between the two tops; one outside a top counts as just below it. */
async function moversBetween(then: Keyspace, now: Keyspace): Promise<ReplayMover[]> {
  const [before, after] = await Promise.all([topOf(then), topOf(now)]);
  const movers: Array<ReplayMover & { by: number }> = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    const by = Math.abs((a?.rank ?? MOVERS_AMONG + 1) - (b?.rank ?? MOVERS_AMONG + 1));
    if (by === 0) continue;
    const rowThen = a?.row ?? (await then.userById(id));
    const rowNow = b?.row ?? (await now.userById(id));
    const row = rowNow ?? rowThen!;
    movers.push({ ...mover(row, { rank: a?.rank ?? null, passes: rowThen?.passes ?? 0 }, { rank: b?.rank ?? null, passes: rowNow?.passes ?? 0 }), by });
  }
  movers.sort((x, y) => y.by - x.by || (x.rankNow ?? Infinity) - (y.rankNow ?? Infinity));
  return movers.slice(0, SHOWN).map(({ by: _by, ...entry }) => entry);
}

/**
 * What moved between two sets of read models (a replay's or the live ones): members joined (on
 * the second side only) and left (erased: on the first only), passes taken, the points members
 * hold, the funds raised, and the ranking's biggest movers among the top MOVERS_AMONG. Reads
 * every row of both sides once and holds their member ids (about 100 MB at a million members).
 */
export async function replayDiff(then: { side: ReplayDiffSide; keyspace: Keyspace }, now: { side: ReplayDiffSide; keyspace: Keyspace }): Promise<ReplayDiff> {
  const [mainThen, mainNow, membersThen, membersNow] = await Promise.all([then.keyspace.main(), now.keyspace.main(), membersOf(then.keyspace), membersOf(now.keyspace)]);
  const joined = await missingFrom(membersNow.ids, membersThen.ids, now.keyspace, false);
  const left = await missingFrom(membersThen.ids, membersNow.ids, then.keyspace, true);
  return {
    then: then.side,
    now: now.side,
    members: { ...figure(mainThen.members, mainNow.members), joined: joined.count, left: left.count, joinedSample: joined.sample, leftSample: left.sample },
    passes: figure(mainThen.sold, mainNow.sold),
    points: figure(membersThen.points, membersNow.points),
    funds: figure(fundsRaised(mainThen), fundsRaised(mainNow)),
    movers: await moversBetween(then.keyspace, now.keyspace),
    moversAmong: MOVERS_AMONG,
  };
}
