/**
 * The Python client (clients/python/, standard library only) against a real `t1lab env serve` process on
 * loopback (issue 37): the example loop drives 16 sessions at once with the oracle; every episode resolves,
 * every reward equals the lab's own evaluation of the same tasks, and nothing is left running (no session,
 * no sandbox process, a clean exit that keeps every record). The client's errors carry the status, and the
 * admin token file is private.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvaluation } from '../../../electron/lab/runs/evaluate';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { loadTaskSource, writePack } from '../../../electron/lab/tasks';
import { REPO_ROOT } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'electron/cli/t1lab.ts');
const CLIENT = join(REPO_ROOT, 'clients/python');
const SESSIONS = 16;

const records = (dir: string) =>
  readFileSync(join(dir, 'episodes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeRecord);

/** Processes whose parent chain reaches `root` (its sandboxes, shells, verifiers); tsx's esbuild service is not one. */
function descendants(root: number): { pid: number; comm: string }[] {
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      comm.set(Number(name), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(name), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; comm: string }[] = [];
  for (const pid of parent.keys()) {
    let p = parent.get(pid);
    for (let depth = 0; p && depth < 64; depth++) {
      if (p === root) {
        if (comm.get(pid) !== 'esbuild') out.push({ pid, comm: comm.get(pid) ?? '?' });
        break;
      }
      p = parent.get(p);
    }
  }
  return out;
}

describe('the Python client against t1lab env serve', () => {
  let tmp: { path: string; remove(): void };
  let child: ChildProcess;
  let url: string;
  let stderr = '';
  let pack: string;
  let ids: string[];
  const runDir = () => join(tmp.path, 'env-run');

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-pyclient-');
    const tasks = (await loadTaskSource(join(REPO_ROOT, 'tasks/suites/id-nano.jsonl'))).tasks.slice(0, SESSIONS);
    ids = tasks.map((t) => t.id);
    pack = join(tmp.path, 'tasks.jsonl');
    await writePack(pack, tasks);
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        'env',
        'serve',
        '--suite',
        pack,
        '--max-sessions',
        String(SESSIONS),
        '--backend',
        'bubblewrap',
        '--out',
        runDir(),
      ],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          T1LAB_HOME: tmp.path,
          T1LAB_ENV_ADMIN_TOKEN: '' /* unset: a token is made per launch */,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no URL; stderr: ${stderr}`)), 90_000);
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
  }, 120_000);
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    tmp.remove();
  });

  const tokenFile = () => join(tmp.path, 'env', 'admin-token');

  it('keeps the admin token in a private file, out of stdout and stderr', () => {
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile(), 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(stderr.includes(token)).toBe(false);
  });

  it("16 concurrent sessions with the oracle from Python: all resolved, rewards equal to the lab's own evaluation, nothing left running", async () => {
    const { stdout } = await run(
      'python3',
      [
        join(CLIENT, 'example_loop.py'),
        '--url',
        url,
        '--admin-token-file',
        tokenFile(),
        '--concurrency',
        String(SESSIONS),
      ],
      { timeout: 540_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const lines = stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            task_id: string;
            done: boolean;
            resolved: boolean;
            reward: number;
            rewards: EpisodeRecord['reward'];
          },
      );
    expect(lines.map((l) => l.task_id).sort()).toEqual([...ids].sort());
    for (const l of lines) expect(l, JSON.stringify(l)).toMatchObject({ done: true, resolved: true });

    // The lab's own evaluation of the same tasks, with the same oracle.
    const lab = await startEvaluation(
      { suite: pack, policy: 'oracle', concurrency: 2, out: join(tmp.path, 'lab-run') },
      {
        dataDir: tmp.path,
        containers: { backend: 'bubblewrap', engine: 'podman', baseImages: {}, pull: false, network: false },
      },
      { log: () => {} },
    );
    await lab.done;
    const ours = new Map(records(join(tmp.path, 'lab-run')).map((r) => [r.taskId, r.reward]));
    for (const l of lines) {
      expect(l.rewards, l.task_id).toEqual(ours.get(l.task_id));
      expect(l.reward).toBe(ours.get(l.task_id)?.dense);
    }

    // Nothing left running: every session closed, no sandbox under the service, every episode recorded.
    const deadline = Date.now() + 20_000;
    while (descendants(child.pid as number).length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(descendants(child.pid as number)).toEqual([]);
    expect(
      records(runDir())
        .filter((r) => r.resolved)
        .map((r) => r.taskId)
        .sort(),
    ).toEqual([...ids].sort());
  }, 600_000);

  it('the client raises EnvError with the status: unknown task 404, a step after done 409, a closed session 401', async () => {
    const script = `
import sys
sys.path.insert(0, ${JSON.stringify(CLIENT)})
from t1lab_env import T1LabEnv, EnvError
env = T1LabEnv(${JSON.stringify(url)}, open(${JSON.stringify(tokenFile())}).read().strip())
assert env.health()
out = []
s = env.session()
for call in (lambda: s.reset(task_id="no-such-task"), lambda: s.step({"command": "ls"})):
    try:
        call(); out.append("no error")
    except EnvError as e:
        out.append(e.status)
r = s.reset(task_id=${JSON.stringify(ids[0])})
assert not r.done and r.observation["instruction"]
r = s.submit()
assert r.done and r.observation["verifier"]["total"] > 0
try:
    s.run("ls")
except EnvError as e:
    out.append(e.status)
assert "token" not in repr(s).lower() or s._token not in repr(s)
s.close()
try:
    s.state()
except EnvError as e:
    out.append(e.status)
print(out)
`;
    const { stdout } = await run('python3', ['-c', script], { timeout: 120_000 });
    expect(stdout.trim()).toBe('[404, 409, 409, 401]');
  }, 150_000);

  it("verl's tool interface (create, execute, calc_reward, release) runs episodes up to the Ray boundary", async () => {
    const script = `
import asyncio, json, os, sys
sys.path.insert(0, ${JSON.stringify(CLIENT)})
from t1lab_env import T1LabEnv
from t1lab_verl_tool import T1LabTerminalTool
admin = open(${JSON.stringify(tokenFile())}).read().strip()
os.environ["T1LAB_ENV_ADMIN_TOKEN"] = admin
tool = T1LabTerminalTool({"url": ${JSON.stringify(url)}, "reward": "dense"})
env = T1LabEnv(${JSON.stringify(url)}, admin)

async def trajectory(task_id, solve):
    iid, first = await tool.create(task_id=task_id)
    assert first.text
    if solve:
        for command in env.oracle(task_id):
            response, step_reward, _ = await tool.execute(iid, {"command": command})
    bad, _, _ = await tool.execute(iid, {})
    reward = await tool.calc_reward(iid)
    await tool.release(iid)
    return {"task_id": task_id, "solve": solve, "reward": reward, "bad": bad.text}

async def main():
    ids = ${JSON.stringify(ids.slice(0, 2))}
    out = await asyncio.gather(*(trajectory(t, solve) for t in ids for solve in (True, False)))
    print(json.dumps(out))
asyncio.run(main())
`;
    const { stdout } = await run('python3', ['-c', script], { timeout: 240_000 });
    const out = JSON.parse(stdout) as { task_id: string; solve: boolean; reward: number; bad: string }[];
    const lab = new Map(records(join(tmp.path, 'lab-run')).map((r) => [r.taskId, r.reward]));
    for (const t of out) {
      expect(t.bad).toMatch(/Give "command"/);
      if (t.solve) expect(t.reward, t.task_id).toBe(lab.get(t.task_id)?.dense);
      else expect(t.reward, t.task_id).toBeLessThan(lab.get(t.task_id)?.dense as number);
    }
    // Every trajectory released: no session left, no sandbox under the service.
    const deadline = Date.now() + 20_000;
    while (descendants(child.pid as number).length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(descendants(child.pid as number)).toEqual([]);
  }, 300_000);

  it("verl dataset rows from the exported Harbor folders name each task for the tool's create_kwargs", async () => {
    const harbor = join(tmp.path, 'harbor');
    const exported = await run(
      process.execPath,
      ['--import', 'tsx', CLI, 'tasks', 'export', '--format', 'harbor', '--out', harbor, pack],
      { cwd: REPO_ROOT, timeout: 120_000 },
    );
    expect(exported.stdout).toMatch(new RegExp(`exported ${SESSIONS} task`));
    const out = join(tmp.path, 'train.jsonl');
    await run('python3', [join(CLIENT, 'verl_dataset.py'), '--harbor', harbor, '--out', out], { timeout: 60_000 });
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            agent_name: string;
            prompt: { role: string; content: string }[];
            extra_info: { tools_kwargs: { terminal: { create_kwargs: { task_id: string } } } };
          },
      );
    expect(rows.map((r) => r.extra_info.tools_kwargs.terminal.create_kwargs.task_id).sort()).toEqual([...ids].sort());
    const [first] = (await loadTaskSource(pack)).tasks;
    const row = rows.find((r) => r.extra_info.tools_kwargs.terminal.create_kwargs.task_id === first?.id);
    expect(row?.prompt[1]).toEqual({ role: 'user', content: first?.instruction });
    expect(row?.agent_name).toBe('tool_agent');
  }, 180_000);

  it('stops on SIGTERM with every episode recorded', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(records(runDir()).length).toBeGreaterThanOrEqual(SESSIONS + 5);
    const token = readFileSync(tokenFile(), 'utf8').trim();
    expect(stderr.includes(token)).toBe(false);
  }, 60_000);
});
