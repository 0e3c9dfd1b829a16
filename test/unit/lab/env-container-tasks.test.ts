/**
 * Tasks that need a container and an environment service that cannot give them one (`env serve` without
 * --hosts, on --backend bubblewrap): the operator is told at start which tasks and how to serve them, and
 * a reset of one is a 503 that says the same, not an error of the service.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerSettings } from '../../../electron/lab/containers/settings';
import { containerNotice, usesContainer } from '../../../electron/lab/env/hosts';
import { EnvError, EnvService } from '../../../electron/lab/env/service';
import { loadTaskSource, type Task } from '../../../electron/lab/tasks';
import { makeTempDir } from '../../helpers/tmp';

const ADMIN = 'admin-token-for-tests-0123456789';

function writeTask(dir: string, environment: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), 'Write ok into answer.txt.\n');
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\n${environment}[[verifier.assertions]]\nname = "answer"\nrun = "grep -qx ok answer.txt"\n`,
  );
}

describe('container tasks without hosts or a container engine', () => {
  let tmp: { path: string; remove(): void };
  let tasks: Task[];

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-env-ctasks-');
    writeTask(
      join(tmp.path, 'suite', 'boxed'),
      '[environment]\nruntime = "container"\ncontainer_reason = "runs a database service"\n',
    );
    writeTask(join(tmp.path, 'suite', 'plain'), '');
    tasks = (await loadTaskSource(join(tmp.path, 'suite'))).tasks;
    expect(tasks.map((t) => t.id).sort()).toEqual(['boxed', 'plain']);
  });
  afterAll(() => tmp.remove());

  it('names them at start, and says how to serve them', async () => {
    const bwrap = containerSettings({ backend: 'bubblewrap', dataDir: tmp.path });
    const notice = await containerNotice(tasks, bwrap);
    expect(notice?.tasks).toEqual(['boxed']);
    expect(notice?.message).toMatch(
      /1 task\(s\) need a container and are not served with --backend bubblewrap .*: boxed; serve them with --hosts a,b .* or with this machine's podman or docker/,
    );
    // With hosts they are served there; a suite without such tasks needs nothing.
    expect(
      await containerNotice(tasks, { ...bwrap, hosts: [{ name: 'a', url: 'unix:///nowhere.sock', slots: 1 }] }),
    ).toBeNull();
    expect(
      await containerNotice(
        tasks.filter((t) => t.id === 'plain'),
        bwrap,
      ),
    ).toBeNull();
    expect(
      tasks.filter((t) => usesContainer(t, containerSettings({ backend: 'auto', dataDir: tmp.path }))).map((t) => t.id),
    ).toEqual(['boxed']);
    expect(tasks.filter((t) => usesContainer(t, bwrap))).toEqual([]);
  });

  it('a reset of one is a 503 that says why and how, and the session goes on', async () => {
    const service = new EnvService({
      tasks,
      suite: 'suite',
      runDir: join(tmp.path, 'run'),
      adminToken: ADMIN,
      containers: containerSettings({ backend: 'bubblewrap', dataDir: tmp.path }),
      tmpDir: tmp.path,
    });
    try {
      const session = service.sessionOf(service.createSession().token);
      const error = (await service.reset(session, { task_id: 'boxed' }).catch((e: unknown) => e)) as EnvError;
      expect(error).toBeInstanceOf(EnvError);
      expect(error.status).toBe(503);
      expect(error.message).toMatch(
        /^task 'boxed' needs a container \(it runs a database service\): this service runs it only on engine hosts \(`t1lab env serve --hosts a,b`/,
      );
      expect(service.state(session)).toMatchObject({ task_id: null, done: null });
    } finally {
      await service.close();
    }
  });
});
