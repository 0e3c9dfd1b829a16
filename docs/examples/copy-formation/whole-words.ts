/**
 * The vocabulary's whole-word tokens: letters, digits and `_./ -`, two characters or more, each encoding back
 * to itself alone. Lists of them make copy probes where one earlier occurrence names the next token.
 */
export function wholeWords(
  tok: { encode(s: string): number[]; decode(ids: number[]): string },
  vocabSize: number,
): string[] {
  const words: string[] = [];
  for (let id = 0; id < vocabSize; id++) {
    const w = tok.decode([id]);
    if (/^[A-Za-z0-9_./ -]{2,}$/.test(w) && tok.encode(w).length === 1) words.push(w);
  }
  return words;
}
