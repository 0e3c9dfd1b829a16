import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMount, checkWorkspace, defaultDataDir, defaultProtectedPaths } from '../../../native/sandbox/workspace';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

describe('workspace checks', () => {
  const protectedPaths = [join(tmp.path, 'home'), join(tmp.path, 'data')];
  mkdirSync(join(tmp.path, 'home', 'alice', 'task'), { recursive: true });
  mkdirSync(join(tmp.path, 'data', 'runs', 'r1'), { recursive: true });
  writeFileSync(join(tmp.path, 'file'), 'x');

  it('accepts a directory inside a protected one (only it is mounted) and returns its real path', () => {
    symlinkSync(join(tmp.path, 'home', 'alice', 'task'), join(tmp.path, 'link'));
    expect(checkWorkspace(join(tmp.path, 'link'), protectedPaths)).toBe(join(tmp.path, 'home', 'alice', 'task'));
    expect(checkWorkspace(join(tmp.path, 'data', 'runs', 'r1'), protectedPaths)).toBe(
      join(tmp.path, 'data', 'runs', 'r1'),
    );
  });
  it('says what to do when the workspace is missing', () => {
    expect(() => checkWorkspace(join(tmp.path, 'nope'), protectedPaths)).toThrow(
      /does not exist; create it first \(mkdir -p/,
    );
  });
  it('refuses a file', () => {
    expect(() => checkWorkspace(join(tmp.path, 'file'), protectedPaths)).toThrow(/is not a directory/);
  });
  it('refuses a workspace that is or contains a protected path', () => {
    expect(() => checkWorkspace(join(tmp.path, 'home'), protectedPaths)).toThrow(/would expose/);
    expect(() => checkWorkspace(tmp.path, protectedPaths)).toThrow(/would expose/);
    expect(() => checkWorkspace('/', protectedPaths)).toThrow(/system directory/);
    expect(() => checkWorkspace('/usr/lib', protectedPaths)).toThrow(/system directory/);
    expect(() => checkWorkspace('/tmp', protectedPaths)).toThrow(/system directory/);
  });
  it('checks extra mounts the same way, and their sandbox paths', () => {
    expect(() =>
      checkMount({ host: join(tmp.path, 'home'), sandbox: '/tests', readOnly: true }, 0, protectedPaths),
    ).toThrow(/mounts\[0\].*would expose/);
    expect(() =>
      checkMount({ host: join(tmp.path, 'data', 'runs'), sandbox: 'tests', readOnly: true }, 1, protectedPaths),
    ).toThrow(/mounts\[1\]\.sandbox/);
    expect(() =>
      checkMount({ host: join(tmp.path, 'data', 'runs'), sandbox: '/usr', readOnly: true }, 2, protectedPaths),
    ).toThrow(/system directory/);
    expect(
      checkMount({ host: join(tmp.path, 'data', 'runs'), sandbox: '/tests', readOnly: true }, 3, protectedPaths).host,
    ).toBe(join(tmp.path, 'data', 'runs'));
  });
  it('protects the home directories, the data dir and the checkout by default', () => {
    const paths = defaultProtectedPaths({ T1LAB_HOME: '/srv/t1lab-data' });
    expect(paths).toEqual(expect.arrayContaining(['/home', '/srv/t1lab-data']));
    expect(paths.some((p) => p === homedir() || homedir().startsWith(p))).toBe(true);
    expect(paths.some((p) => process.cwd().startsWith(p))).toBe(true);
    expect(defaultDataDir({ XDG_DATA_HOME: '/x' })).toBe('/x/t1-lab');
  });
});
