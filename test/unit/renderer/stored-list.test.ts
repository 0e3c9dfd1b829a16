/** Named lists in the browser's storage: read back checked, saved under a name, forgotten; storage that is missing or refuses writes. */
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_ENTRIES, MAX_NAME, namedList, readStored, writeStored } from '../../../renderer/src/lab/stored-list';

interface Entry {
  name: string;
  n: number;
}
const list = namedList<Entry>('test.list', (o, name) => (typeof o.n === 'number' ? { name, n: o.n } : null));
const g = globalThis as { localStorage?: unknown };

function memoryStorage(): Map<string, string> {
  const m = new Map<string, string>();
  g.localStorage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
  return m;
}

afterEach(() => {
  delete g.localStorage;
});

describe('named lists', () => {
  test('a new name goes last, the same name (trimmed) replaces in place, a blank name changes nothing, without forgets', () => {
    let l = list.with([], { name: 'a', n: 1 });
    l = list.with(l, { name: 'b', n: 2 });
    l = list.with(l, { name: ' a ', n: 3 });
    expect(l).toEqual([
      { name: 'a', n: 3 },
      { name: 'b', n: 2 },
    ]);
    expect(list.with(l, { name: '  ', n: 9 })).toEqual(l);
    expect(list.without(l, 'a')).toEqual([{ name: 'b', n: 2 }]);
  });

  test('past MAX_ENTRIES the oldest go; a long name is cut', () => {
    let l: Entry[] = [];
    for (let i = 0; i <= MAX_ENTRIES; i++) l = list.with(l, { name: `e${i}`, n: i });
    expect(l).toHaveLength(MAX_ENTRIES);
    expect(l[0]!.name).toBe('e1');
    expect(list.with([], { name: 'x'.repeat(MAX_NAME + 5), n: 0 })[0]!.name).toHaveLength(MAX_NAME);
  });

  test('what is read back is checked entry by entry, and only the known fields are kept', () => {
    expect(list.parse(null)).toEqual([]);
    expect(list.parse('{')).toEqual([]);
    expect(list.parse('{"name":"a","n":1}')).toEqual([]);
    expect(
      list.parse(
        JSON.stringify([
          { name: 'ok', n: 1, extra: true },
          { name: '', n: 2 },
          { name: 'x'.repeat(MAX_NAME + 1), n: 3 },
          { name: 'bad', n: '4' },
          null,
          5,
        ]),
      ),
    ).toEqual([{ name: 'ok', n: 1 }]);
  });

  test('stored and loaded under its key', () => {
    const m = memoryStorage();
    list.store([{ name: 'a', n: 1 }]);
    expect(JSON.parse(m.get('test.list')!)).toEqual([{ name: 'a', n: 1 }]);
    expect(list.load()).toEqual([{ name: 'a', n: 1 }]);
  });

  test('no storage, or storage that throws: reads find nothing and writes are dropped', () => {
    expect(readStored('k')).toBeNull();
    expect(list.load()).toEqual([]);
    g.localStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(readStored('k')).toBeNull();
    expect(() => writeStored('k', [1])).not.toThrow();
    expect(list.load()).toEqual([]);
  });
});
