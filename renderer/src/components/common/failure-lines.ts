/** The lines of a failure's output that say why it failed (see FailureMessage). */
/** Lines that carry no information about why something failed. */
const NOISE = [
  /^Traceback \(most recent call last\):$/,
  /^[-=_]{3,}.*$/,
  /^\s*$/,
  /^\s*\^+\s*$/,
  /^During handling of the above exception/,
];
const MAX_KEY_LINES = 4;

export function keyLines(message: string): string[] {
  // The verifier prefixes its status ("exit 1: "): keep it out of the way of the text it prefixes.
  const lines = message
    .replace(/\r\n?/g, '\n')
    .replace(/^exit \d+: /, '')
    .split('\n');
  // pytest: the `E   ...` lines are the assertion and its explanation.
  const pytest = lines.filter((l) => /^E\s{1,}/.test(l)).map((l) => l.replace(/^E\s+/, ''));
  if (pytest.length) return pytest.slice(0, MAX_KEY_LINES);
  // A Python traceback: the exception after the last frame, with that frame's location above it.
  const lastFrame = lines.findLastIndex((l) => /^\s+File "/.test(l));
  if (lines.some((l) => /^Traceback \(most recent call last\):/.test(l)) && lastFrame >= 0) {
    const exception = lines.slice(lastFrame + 1).filter((l) => !NOISE.some((n) => n.test(l)) && !/^\s{4}/.test(l));
    if (exception.length) return [lines[lastFrame]!.trim(), ...exception.slice(0, MAX_KEY_LINES - 1)];
  }
  const meaningful = lines.filter((l) => !NOISE.some((n) => n.test(l)));
  return meaningful.slice(-MAX_KEY_LINES);
}
