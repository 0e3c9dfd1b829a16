/** Asks this machine what it has (Debian packages, Python modules), for the importer's decisions. */
import { execQuiet } from '../../../../native/util/exec';
import type { HostProbe } from './dockerfile';

const SYSTEM_PYTHON = '/usr/bin/python3';

export const hostProbe: HostProbe = {
  async missingDebs(names) {
    if (names.length === 0) return [];
    const r = await execQuiet('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...names]);
    const installed = new Set(
      r.stdout
        .split('\n')
        .filter((l) => l.endsWith('install ok installed'))
        .map((l) => l.split(' ')[0]),
    );
    return names.filter((n) => !installed.has(n));
  },
  async hasCommand(name) {
    if (!/^[A-Za-z0-9._+-]+$/.test(name)) return false;
    // The sandbox sees the host's /usr: the same folders as its PATH.
    const r = await execQuiet('sh', [
      '-c',
      `PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v ${name}`,
    ]);
    return r.ok && r.stdout.trim().length > 0;
  },
  async missingPythonModules(names) {
    const tops = [
      ...new Set(names.map((n) => n.split('.')[0] as string).filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n))),
    ];
    if (tops.length === 0) return [];
    // find_spec locates a top-level module without importing (running) it.
    const code =
      'import importlib.util,sys\nfor m in sys.argv[1:]:\n  if importlib.util.find_spec(m) is None: print(m)';
    const r = await execQuiet(SYSTEM_PYTHON, ['-I', '-c', code, ...tops]);
    if (r.spawnError) return tops;
    return r.stdout.split('\n').filter(Boolean);
  },
};
