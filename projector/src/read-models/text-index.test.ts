import { describe, expect, it } from 'vitest';
import { searchTerms, searchText, encodeSearchText, decodeSearchText } from './search-text';
import { TextIndex, type TextQuery } from './text-index';

const may = '2026-05-06T09:00:00.000Z';
const dec = '2026-12-06T10:00:00.000Z';

/** Given rows (ordinal → card, passes), an index as the projection would feed it. */
function given(rows: Array<{ fullname?: string; country?: string; createdAt?: string; email?: string; passes?: number }>): TextIndex {
  const index = new TextIndex();
  rows.forEach((row, ordinal) => {
    index.setText(ordinal, searchText({ fullname: row.fullname ?? '', country: row.country ?? '', createdAt: row.createdAt ?? may, email: row.email ?? '' }));
    index.setScore(ordinal, row.passes ? -row.passes : 0);
  });
  return index;
}

const search = (index: TextIndex, q: string, options: Partial<TextQuery> = {}) =>
  index.page({ terms: searchTerms(q), registry: false, membersOnly: false, posted: false, offset: 0, limit: 50, ...options });

describe('a search for any part of what a row shows', () => {
  const index = given([
    { fullname: 'Desk User', country: 'Spain', passes: 1 },
    { fullname: 'María López', country: 'Peru', createdAt: dec, passes: 3 },
    { fullname: 'Omar Khan', country: 'India', createdAt: dec },
    { email: 'desk.user@example.com', createdAt: dec },
  ]);

  it('finds the inside of a name or a country, whatever the case and accents', () => {
    expect(search(index, 'esk').ordinals).toEqual([0]);
    expect(search(index, 'MAR').ordinals).toEqual([1, 2]);
    expect(search(index, 'ópe').ordinals).toEqual([1]);
    expect(search(index, 'ndi').ordinals).toEqual([2]);
  });

  it('finds any part of the date as the registry shows it', () => {
    expect(search(index, '12/2026').total).toBe(3);
    expect(search(index, '06/12').total).toBe(3);
    expect(search(index, '2026').total).toBe(4);
    expect(search(index, '05/2026').ordinals).toEqual([0]);
  });

  it('needs every term, each in any token', () => {
    expect(search(index, 'mar peru').ordinals).toEqual([1]);
    expect(search(index, 'ar 12/20').ordinals).toEqual([1, 2]);
    expect(search(index, 'mar spain').total).toBe(0);
  });

  it('finds a nameless row by what its masked e-mail shows, in the registry only, never by the hidden part', () => {
    expect(search(index, 'des******@example.com', { registry: true }).ordinals).toEqual([3]);
    expect(search(index, 'example', { registry: true }).ordinals).toEqual([3]);
    expect(search(index, 'example').total).toBe(0);
    expect(search(index, 'user', { registry: true }).ordinals).toEqual([0]);
  });

  it('ranks matches by passes, then by registration', () => {
    expect(search(index, 'a').ordinals).toEqual([1, 0, 2]);
    expect(search(index, 'a', { membersOnly: true }).ordinals).toEqual([1, 0]);
    expect(search(index, 'a', { offset: 1, limit: 1 })).toEqual({ total: 3, ordinals: [0] });
  });

  it('finds the rows holding one letter or digit, by the shown e-mail in the registry only', () => {
    expect(search(index, 'k').ordinals).toEqual([0, 2]);
    expect(search(index, 'x').total).toBe(0);
    expect(search(index, 'x', { registry: true }).ordinals).toEqual([3]);
    expect(search(index, '5').ordinals).toEqual([0]);
    expect(search(index, 'k 5').ordinals).toEqual([0]);
  });

  it('matches nothing for text without a letter or digit', () => {
    expect(searchTerms('!!! ***')).toEqual([]);
    expect(searchTerms('José-María, Perú; 06/12')).toEqual(['jose', 'maria', 'peru', '06/12']);
    expect(search(index, 'maria-lopez').ordinals).toEqual([1]);
    expect(search(index, '!!!').total).toBe(0);
  });
});

describe('the index as rows change', () => {
  it('forgets a row\'s old text, and a row erased or out of the ranking', () => {
    const index = given([{ fullname: 'Desk', country: 'Spain' }, { fullname: 'Nadesko', country: 'Chile' }]);
    expect(search(index, 'desk').ordinals).toEqual([0, 1]);
    index.setText(0, searchText({ fullname: 'Table', country: 'Spain', createdAt: may }));
    expect(search(index, 'desk').ordinals).toEqual([1]);
    expect(search(index, 'tab').ordinals).toEqual([0]);
    expect(search(index, 'k').ordinals).toEqual([1]);
    index.setText(1, null);
    expect(search(index, 'desk').total).toBe(0);
    expect(search(index, 'k').total).toBe(0);
    index.setScore(0, null);
    expect(search(index, 'spain').total).toBe(0);
  });

  it('re-ranks a cached result when a score changes', () => {
    const index = given([{ fullname: 'Ann' }, { fullname: 'Anna' }]);
    expect(search(index, 'ann').ordinals).toEqual([0, 1]);
    index.setScore(1, -2);
    expect(search(index, 'ann').ordinals).toEqual([1, 0]);
  });

  it('keeps answering the same after many texts were replaced (its storage compacted)', () => {
    const index = given(Array.from({ length: 300 }, (_, i) => ({ fullname: `Name${i}` })));
    for (let round = 0; round < 40; round++) for (let i = 0; i < 300; i++) index.setText(i, searchText({ fullname: `Round${round} Name${i}`, country: '', createdAt: may }));
    expect(search(index, 'round39').total).toBe(300);
    expect(search(index, 'round38').total).toBe(0);
    expect(search(index, 'name299').ordinals).toEqual([299]);
  });

  it('finds the posted cards alone when asked', () => {
    const index = given([{ fullname: 'Ann' }, { email: 'ann@example.com' }]);
    expect(search(index, 'ann', { registry: true }).ordinals).toEqual([0, 1]);
    expect(search(index, 'ann', { registry: true, posted: true }).ordinals).toEqual([0]);
  });
});

describe('the index in a snapshot', () => {
  /** A copy of `index` through its parts (of `size` tokens or rows), as a restart restores it. */
  const restored = (index: TextIndex, size: number) => {
    const copy = new TextIndex();
    for (const part of structuredClone(index.exportParts(size))) copy.restore(part);
    return copy;
  };
  const queries: Array<[string, Partial<TextQuery>]> = [
    ['esk', {}], ['a', {}], ['a', { membersOnly: true }], ['12/2026', {}], ['k 5', {}], ['example', { registry: true }],
    ['x', { registry: true }], ['x', {}], ['user', { registry: true }], ['ann', { registry: true, posted: true }], ['mar peru', {}],
  ];
  const rows = [
    { fullname: 'Desk User', country: 'Spain', passes: 1 },
    { fullname: 'María López', country: 'Peru', createdAt: dec, passes: 3 },
    { email: 'desk.user@example.com', createdAt: dec },
    { fullname: 'Ann', country: 'Chile' },
    { email: 'ann@example.com', passes: 2 },
  ];

  it('answers every search as the index it was taken from, in parts of any size', () => {
    const index = given(rows);
    index.setText(1, searchText({ fullname: 'María Kim', country: 'Peru', createdAt: dec, email: '' }));
    index.setText(3, null);
    for (const size of [1, 2, 1000]) {
      const copy = restored(index, size);
      for (const [q, options] of queries) expect(search(copy, q, options), `${q} in parts of ${size}`).toEqual(search(index, q, options));
    }
  });

  it('goes on changing as the original would', () => {
    const index = given(rows);
    const copy = restored(index, 2);
    for (const each of [index, copy]) {
      each.setText(0, searchText({ fullname: 'Table', country: 'Spain', createdAt: may, email: '' }));
      each.setText(5, searchText({ fullname: 'Deskin', country: 'Kenya', createdAt: may, email: '' }));
      each.setScore(5, -4);
      each.setScore(1, null);
    }
    for (const [q, options] of [...queries, ['desk', {}], ['tab', {}], ['ken', {}]] as typeof queries) expect(search(copy, q, options), q).toEqual(search(index, q, options));
    expect(search(copy, 'desk').ordinals).toEqual([5]);
  });

  it('refuses parts out of their order', () => {
    const parts = given(rows).exportParts(2);
    const rowsFirst = [...parts.filter((p) => p.part === 'textRows'), ...parts.filter((p) => p.part === 'textTokens')];
    expect(() => rowsFirst.forEach((part) => new TextIndex().restore(part))).toThrow(/out of place/);
    const skipped = new TextIndex();
    expect(() => parts.filter((_, i) => i !== parts.length - 2).forEach((part) => skipped.restore(part))).toThrow(/out of place/);
  });
});

describe('a row\'s search record in Redis', () => {
  it('reads back as written', () => {
    const text = searchText({ fullname: 'María  López', country: 'United States', createdAt: dec, email: '' });
    expect(text.tokens).toEqual(['maria', 'lopez', 'united', 'states', '06/12/2026']);
    expect(decodeSearchText(encodeSearchText(text))).toEqual(text);
    const nameless = searchText({ fullname: '', country: '', createdAt: dec, email: 'Desk.User@Example.com' });
    expect(decodeSearchText(encodeSearchText(nameless))).toEqual({ tokens: ['06/12/2026'], masked: 'des******@example.com', posted: false });
  });
});
