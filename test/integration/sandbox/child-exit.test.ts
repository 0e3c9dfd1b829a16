/**
 * A run ends when its process exits, even when something outside its tree still holds the output pipes
 * (bubblewrap's orphaned intermediate process did, and a PPO step waited on it for half an hour), and the
 * sandbox's cgroup kills whatever is left in it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childEnded } from '../../../native/sandbox/child-exit';
import { cgroupSupport, createSandboxCgroup } from '../../../native/sandbox/cgroups';
import { processAlive } from '../../../native/util/process-alive';
import { optionalSkip } from '../../helpers/skip';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('childEnded', () => {
  it('reports a plain exit once the output is closed', async () => {
    const child = spawn('sh', ['-c', 'echo hi; exit 3'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    let stuckCalls = 0;
    const end = await childEnded(child, 5_000, () => stuckCalls++);
    expect(end).toEqual({ code: 3, signal: null, stuck: false });
    expect(out).toBe('hi\n');
    expect(stuckCalls).toBe(0);
  });

  it('ends after the grace when an orphan keeps the pipes open, and lets the caller kill it', async () => {
    // The shell exits at once; its background sleep (an orphan now, in the shell's process group) holds
    // stdout and stderr for 60 s. Waiting on 'close' would wait for it.
    const child = spawn('sh', ['-c', 'sleep 60.417 & echo started'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const group = child.pid as number;
    const end = await childEnded(child, 300, () => process.kill(-group, 'SIGKILL'));
    expect(end).toEqual({ code: 0, signal: null, stuck: true });
    expect(out).toBe('started\n');
    expect(child.stdout.destroyed).toBe(true);
    await until(() => {
      try {
        process.kill(-group, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the orphaned sleep is killed');
  });
});

describe('sandbox cgroup kill', () => {
  it('kills every process left in the group', async (ctx) => {
    const support = cgroupSupport();
    ctx.skip(support.kind === 'none', optionalSkip(`cgroups are not usable here: ${support.reason}`));
    const cgroup = await createSandboxCgroup({ memoryMb: 256, processes: 64 });
    ctx.skip(cgroup === null, optionalSkip('this user may not create a cgroup'));
    const sleeper = spawn('sleep', ['60.418'], { stdio: 'ignore' });
    const pid = sleeper.pid as number;
    for (const file of cgroup!.procsFiles) writeFileSync(file, String(pid));
    expect(cgroup!.tasks()).toBeGreaterThanOrEqual(1);
    await cgroup!.kill();
    await new Promise<void>((resolve) =>
      sleeper.exitCode !== null || sleeper.signalCode !== null ? resolve() : sleeper.once('exit', () => resolve()),
    );
    expect(sleeper.signalCode).toBe('SIGKILL');
    expect(processAlive(pid)).toBe(false);
    await cgroup!.remove();
  });
});
