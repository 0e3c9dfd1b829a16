/** The `data.path` entries that name a generated corpus rather than a file: never resolved as paths. */
export const BUILTIN_CORPUS = 'builtin';
export const COPY_DRILLS_CORPUS = 'builtin:copy';

export function isBuiltinCorpus(path: string): boolean {
  return path === BUILTIN_CORPUS || path === COPY_DRILLS_CORPUS;
}
