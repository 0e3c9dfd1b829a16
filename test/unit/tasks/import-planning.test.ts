/** The importer's pure parts: the offline test script, the Dockerfile planner's decisions, container run flags. */
import { describe, expect, it } from 'vitest';
import { offlineTestScript, pytestArgs } from '../../../electron/lab/tasks/import/offline-tests';
import { planEnvironment, writesOutside, type HostProbe } from '../../../electron/lab/tasks/import/dockerfile';
import { runArgs } from '../../../native/sandbox/container/run-args';
import { defaultLimits } from '../../../native/sandbox';

/** A host that has exactly these Debian packages and commands (the planner's only questions to the machine). */
function hostWith(debs: string[], commands: string[]): HostProbe {
  return {
    missingDebs: async (names) => names.filter((n) => !debs.includes(n)),
    missingPythonModules: async () => [],
    hasCommand: async (name) => commands.includes(name),
  };
}

describe('offlineTestScript', () => {
  it('drops install steps, replaces the uvx pytest run, and keeps every other step in order', () => {
    const r = offlineTestScript(
      [
        '#!/bin/bash',
        'apt-get update',
        'curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh',
        'source $HOME/.local/bin/env',
        'cp /tests/test.py /app/',
        'python3 /tests/gen_large_csv.py',
        'cd /tests',
        'export PYTHONPATH=/app',
        'uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA',
        'echo done',
      ].join('\n'),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.script.split('\n')).toEqual([
      '#!/bin/bash',
      'cp /tests/test.py /app/',
      'python3 /tests/gen_large_csv.py',
      'cd /tests',
      'export PYTHONPATH=/app',
      't1lab_pytest /tests/test_outputs.py -rA',
      'echo done',
    ]);
    expect(r.dropped).toHaveLength(3);
  });

  it('refuses a script that fetches something else, naming the command', () => {
    const r = offlineTestScript('#!/bin/bash\nwget https://example.com/data.csv\npytest /tests/test_outputs.py\n');
    expect(r).toEqual({ ok: false, reason: 'fetches from the network: wget https://example.com/data.csv' });
  });

  it('takes pytest arguments from uvx, python -m and bare forms', () => {
    expect(pytestArgs('uvx -w pytest==8.4.1 pytest /tests/t.py -rA')).toEqual(['/tests/t.py', '-rA']);
    expect(pytestArgs('python3 -m pytest -x /tests')).toEqual(['-x', '/tests']);
    expect(pytestArgs('echo nothing')).toBeNull();
  });
});

describe('planEnvironment', () => {
  const host = hostWith(['python3'], ['node', 'python3']);

  it('keeps Dockerfile order when a COPY follows a RUN, and starts the shell in a later WORKDIR', async () => {
    const plan = await planEnvironment(
      'FROM python:3.13-slim\nWORKDIR /app\nRUN mkdir /app/data\nCOPY data/ /app/data/\nWORKDIR /app/site\nRUN touch built\n',
      host,
      '/app',
    );
    expect(plan.containerReason).toBeNull();
    expect(plan.ordered).toBe(true);
    expect(plan.startDir).toBe('/app/site');
    expect(plan.pythonImage).toBe(true);
    expect(plan.setup[0]).toBe('mkdir /app/data');
    expect(plan.setup[1]).toMatch(/cp -R \/environment\/data\/\. \/app\/data\/ && chmod -R u\+w \/app\/data/);
    expect(plan.setup.slice(2)).toEqual(['mkdir -p /app/site && cd /app/site', 'touch built']);
  });

  it('reports every blocker: build-time state outside the workspace, a script that uses the network, missing packages', async () => {
    const plan = await planEnvironment(
      'FROM ubuntu:24.04\nRUN git config --global user.name x\nRUN bash fetch.sh\nRUN apt-get install -y r-base-core\nRUN echo hi > /etc/motd\n',
      host,
      '/app',
      (path) => (path === 'fetch.sh' ? 'git clone https://example.com/repo.git\n' : null),
    );
    expect(plan.reasons).toEqual([
      expect.stringMatching(/^Dockerfile line 2: state outside the workspace at build time \(git config --global/),
      'Dockerfile line 3: runs fetch.sh, which fetches from the network (git clone)',
      'Dockerfile line 4: installs Debian packages this machine lacks: r-base-core',
      expect.stringMatching(/^Dockerfile line 5: state outside the workspace at build time \(writes \/etc\/motd\)/),
    ]);
  });

  it('judges packages by the commands the task uses: npm is not needed when only node runs', async () => {
    const noDebs = hostWith([], ['node']);
    const onlyNode = await planEnvironment(
      'FROM node:20\nRUN apt-get install -y nodejs npm\n',
      noDebs,
      '/app',
      () => null,
      "node -e 'print()'\n",
    );
    expect(onlyNode.containerReason).toBeNull();
    const usesNpm = await planEnvironment(
      'FROM node:20\nRUN apt-get install -y nodejs npm\n',
      noDebs,
      '/app',
      () => null,
      'npm test\n',
    );
    expect(usesNpm.containerReason).toBe('Dockerfile line 2: installs Debian packages this machine lacks: npm');
  });

  it('tells writes outside the workspace from writes inside it', () => {
    expect(writesOutside('mkdir -p /app/data', '/app')).toBeNull();
    expect(writesOutside('echo x > /tmp/y', '/app')).toBeNull();
    expect(writesOutside('cp conf /root/.bashrc', '/app')).toBe('cp /root/.bashrc');
    expect(writesOutside('echo export A=1 >> ~/.bashrc', '/app')).toBe('writes ~/.bashrc');
  });
});

describe('container run flags', () => {
  it('turns the limits, network, mounts and image into engine flags', () => {
    const limits = defaultLimits({ memoryMb: 512, processes: 100, cpuSeconds: 30, fileSizeMb: 10, openFiles: 512 });
    const args = runArgs(
      {
        workspace: '/w',
        workdir: '/app',
        net: false,
        limits,
        mounts: [{ host: '/t', sandbox: '/tests', readOnly: true }],
        env: { A: '1' },
        container: { image: 'img', cpus: 2, bindWorkspace: true },
      },
      'n',
      { openFiles: 4096, processes: 4096 },
      { tty: false, stdin: false },
    );
    const pairs = (flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
    expect(pairs('--network')).toEqual(['none']);
    expect(pairs('--memory')).toEqual(['512m']);
    expect(pairs('--memory-swap')).toEqual(['512m']);
    expect(pairs('--pids-limit')).toEqual(['100']);
    expect(pairs('--cpus')).toEqual(['2']);
    expect(pairs('--ulimit')).toEqual(
      expect.arrayContaining(['nofile=512:4096', 'cpu=30:30', `fsize=${10 * 1024 * 1024}:${10 * 1024 * 1024}`]),
    );
    expect(pairs('-v')).toEqual(['/w:/app:rw', '/t:/tests:ro']);
    expect(pairs('--label')).toEqual(expect.arrayContaining([expect.stringMatching(/^t1lab\.owner=\d+@/)]));
    expect(args.at(-1)).toBe('img');
    const net = runArgs(
      { workspace: '/w', net: true, limits, container: { image: 'img' } },
      'n',
      { openFiles: 4096, processes: 4096 },
      { tty: true, stdin: true },
    );
    expect(net).toContain('-it');
    expect(net.slice(net.indexOf('--network'), net.indexOf('--network') + 2)).toEqual(['--network', 'bridge']);
    expect(net).not.toContain('-v');
  });
});
