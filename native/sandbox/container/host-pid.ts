/**
 * A container's first process as a process of this host, when it is one: the engine's State.Pid is a
 * host pid only where the engine runs on this kernel (not for a remote host, nor in Docker Desktop's VM),
 * and a pid number alone could name any process here. It counts only when the process's own cgroup path
 * names the container's id (podman's `libpod-ID`, docker's `docker-ID.scope` or `/docker/ID`).
 */
import { readFileSync } from 'node:fs';

export function containerHostPid(pid: unknown, id: unknown): number | null {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return null;
  if (typeof id !== 'string' || !/^[0-9a-f]{12,64}$/.test(id)) return null;
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'latin1').includes(id) ? pid : null;
  } catch {
    return null;
  }
}
