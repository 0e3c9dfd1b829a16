/** Word pools the families draw names and data from (combined with FamilyRng.word for unbounded variety). */
import type { FamilyRng } from '../../types';

export const FIRST_NAMES = [
  'ada',
  'alan',
  'grace',
  'linus',
  'ken',
  'dennis',
  'barbara',
  'edsger',
  'donald',
  'margaret',
  'radia',
  'frances',
  'john',
  'leslie',
  'tim',
  'guido',
  'bjarne',
  'niklaus',
  'hedy',
  'katherine',
  'sophie',
  'yukihiro',
  'rob',
  'brian',
  'anita',
  'shafi',
  'whitfield',
  'martin',
  'ivan',
  'carol',
] as const;
export const LAST_NAMES = [
  'lovelace',
  'turing',
  'hopper',
  'torvalds',
  'thompson',
  'ritchie',
  'liskov',
  'dijkstra',
  'knuth',
  'hamilton',
  'perlman',
  'allen',
  'mccarthy',
  'lamport',
  'berners',
  'rossum',
  'stroustrup',
  'wirth',
  'lamarr',
  'johnson',
  'wilson',
  'matsumoto',
  'pike',
  'kernighan',
  'borg',
  'goldwasser',
  'diffie',
  'fowler',
  'sutherland',
  'shaw',
] as const;
export const CITIES = [
  'oslo',
  'lima',
  'cairo',
  'perth',
  'quito',
  'dakar',
  'hanoi',
  'porto',
  'turin',
  'delhi',
  'seoul',
  'tunis',
  'bern',
  'riga',
  'sofia',
  'accra',
  'doha',
  'kyiv',
  'minsk',
  'malmo',
] as const;
export const REGIONS = ['north', 'south', 'east', 'west', 'central', 'coastal', 'alpine', 'metro'] as const;
export const PRODUCTS = [
  'widget',
  'gadget',
  'sprocket',
  'gizmo',
  'bracket',
  'flange',
  'valve',
  'rotor',
  'gasket',
  'spindle',
  'lever',
  'hinge',
  'pulley',
  'nozzle',
  'clamp',
  'coupler',
  'bearing',
  'piston',
  'damper',
  'socket',
] as const;
export const ADJECTIVES = [
  'amber',
  'brisk',
  'calm',
  'dusty',
  'eager',
  'fuzzy',
  'gentle',
  'hollow',
  'ivory',
  'jolly',
  'keen',
  'lucid',
  'mellow',
  'nimble',
  'olive',
  'plain',
  'quiet',
  'rapid',
  'silver',
  'tidy',
  'urban',
  'vivid',
  'witty',
  'young',
  'zesty',
] as const;
export const NOUNS = [
  'falcon',
  'harbor',
  'meadow',
  'comet',
  'ember',
  'glacier',
  'lantern',
  'orchid',
  'pebble',
  'quartz',
  'raven',
  'summit',
  'tundra',
  'willow',
  'canyon',
  'delta',
  'fjord',
  'grove',
  'island',
  'jungle',
  'kettle',
  'lagoon',
  'marble',
  'nebula',
  'oasis',
] as const;
export const SERVICES = [
  'api',
  'web',
  'worker',
  'cron',
  'metrics',
  'auth',
  'billing',
  'search',
  'mailer',
  'queue',
  'cache',
  'gateway',
  'uploader',
  'reports',
  'notifier',
  'scheduler',
  'indexer',
  'admin',
  'ledger',
  'inventory',
] as const;
export const HTTP_PATHS = [
  '/',
  '/login',
  '/logout',
  '/api/items',
  '/api/users',
  '/api/orders',
  '/static/app.js',
  '/static/site.css',
  '/health',
  '/search',
  '/cart',
  '/checkout',
  '/admin',
  '/metrics',
  '/api/v2/report',
  '/favicon.ico',
] as const;
export const STATUS_CODES = [
  200, 200, 200, 200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 404, 500, 502, 503,
] as const;
export const LEVELS = ['DEBUG', 'INFO', 'INFO', 'INFO', 'WARN', 'ERROR'] as const;
export const MONTHS = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'] as const;

/** A hyphenated project-ish name: "amber-falcon" or "amber-falcon-x3k". */
export function projectName(rng: FamilyRng): string {
  const base = `${rng.pick(ADJECTIVES)}-${rng.pick(NOUNS)}`;
  return rng.bool(0.5) ? `${base}-${rng.word(3)}` : base;
}

/** A person as "first.last" plus a seeded suffix digit to keep collisions rare. */
export function personName(rng: FamilyRng): { first: string; last: string } {
  return { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
}

/** `n` distinct values produced by `make` (retries on collision). */
export function distinct<T>(
  rng: FamilyRng,
  n: number,
  make: (rng: FamilyRng) => T,
  key: (t: T) => string = String,
): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (let tries = 0; out.length < n && tries < n * 50; tries++) {
    const item = make(rng);
    const k = key(item);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(item);
    }
  }
  if (out.length < n) throw new Error(`could only draw ${out.length} of ${n} distinct values`);
  return out;
}

/** A date YYYY-MM-DD in the given year (days 1-28, so every month works). */
export function isoDate(rng: FamilyRng, year: number): string {
  return `${year}-${rng.pick(MONTHS)}-${String(rng.int(1, 28)).padStart(2, '0')}`;
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** An IPv4 in a private range. */
export function ipv4(rng: FamilyRng): string {
  return rng.bool(0.5)
    ? `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`
    : `192.168.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

/** Money as integer cents rendered "123.45" (integer arithmetic keeps oracle and verifier exact). */
export function cents(c: number): string {
  const sign = c < 0 ? '-' : '';
  const a = Math.abs(c);
  return `${sign}${Math.floor(a / 100)}.${pad2(a % 100)}`;
}

export function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Code-point order (what Python's sorted() and `LC_ALL=C sort` use). */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
