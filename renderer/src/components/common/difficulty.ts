/** Difficulty in its natural order everywhere (easy, medium, hard, then anything else alphabetically). */
const ORDER = ['easy', 'medium', 'hard'];

export function difficultyRank(d: string): number {
  const i = ORDER.indexOf(d.toLowerCase());
  return i < 0 ? ORDER.length : i;
}

export function sortDifficulties<T extends string>(values: T[]): T[] {
  return [...values].sort((a, b) => difficultyRank(a) - difficultyRank(b) || a.localeCompare(b));
}
