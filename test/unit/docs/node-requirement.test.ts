/**
 * One Node requirement: build/bootstrap.sh's LAB_NODE_MIN is what package.json's engines (and the lock file's
 * copy of them), the README and the install guide state, and the Node bootstrap installs meets it. Any
 * "Node.js X or newer" in those pages must say the same X.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function shellVar(script: string, name: string): string {
  const m = new RegExp(`^${name}=([0-9.]+)$`, 'm').exec(script);
  if (!m?.[1]) throw new Error(`${name} is not set in build/bootstrap.sh`);
  return m[1];
}

const bootstrap = read('build/bootstrap.sh');
const min = shellVar(bootstrap, 'LAB_NODE_MIN');
const installed = shellVar(bootstrap, 'NODE_VERSION');
const pages = ['README.md', 'docs/guide/install-and-doctor.md'];

describe('the Node requirement', () => {
  it('is the engines of package.json and of the lock file', () => {
    const engines = `^${min}.0 || >=24`;
    expect((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node).toBe(engines);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node: string } }> };
    expect(lock.packages['']?.engines?.node).toBe(engines);
  });

  it.each(pages)('%s states it, and no other', (page) => {
    const text = read(page).replace(/\s+/g, ' ');
    expect(text).toContain(`The lab runs on Node.js ${min} or newer`);
    expect(text).toContain(`bootstrap installs Node ${installed}`);
    const stated = [...text.matchAll(/Node(?:\.js)? (\d+\.\d+) or newer/g)].map((m) => m[1]);
    expect(new Set(stated)).toEqual(new Set([min]));
  });

  it('is met by the Node bootstrap installs', () => {
    const [a = 0, b = 0] = installed.split('.').map(Number);
    const [ma = 0, mb = 0] = min.split('.').map(Number);
    expect(a > ma || (a === ma && b >= mb)).toBe(true);
  });
});
