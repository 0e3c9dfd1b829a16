/**
 * Where the API backend copies a spec's read-only folders (a task's /environment, /solution, /tests) when
 * the host does not see this machine's files: a labelled volume per folder, made for one container and
 * removed with it. A copy into the container's own file system would be part of the state committed
 * between phases (the solution in the verifier's start, /environment in the agent's), as a bind never is;
 * a volume is left out of a commit by podman and dockerd alike, and the next phase gets a fresh copy.
 * The copy goes to the mount point itself, not to `/` with the path in the archive: an archive put at `/`
 * lands in the file system under the volume (podman resolves only the target path into a volume).
 * The volume is writable (an engine refuses a copy into a read-only one), so a command could change its
 * own copy; nothing of it outlives the container or comes back here.
 */
import type Docker from 'dockerode';
import type { Mount } from '../../types';
import { packFolder } from './files';

export interface CopiedVolume {
  name: string;
  target: string;
  host: string;
}

/** One volume per read-only folder, named after the container (`t1lab-<pid>-<hex>-ro<i>`), with `labels` for the sweep. */
export async function createReadOnlyVolumes(
  docker: Docker,
  mounts: Mount[],
  containerName: string,
  labels: Record<string, string>,
): Promise<CopiedVolume[]> {
  const made: CopiedVolume[] = [];
  try {
    for (const [i, m] of mounts.filter((x) => x.readOnly).entries()) {
      const name = `${containerName}-ro${i}`;
      await docker.createVolume({ Name: name, Labels: labels });
      made.push({ name, target: m.sandbox, host: m.host });
    }
  } catch (e) {
    await removeVolumes(docker, made);
    throw e;
  }
  return made;
}

/** Copy each folder into its volume through the created (not yet started) container that mounts it. */
export async function fillVolumes(container: Docker.Container, volumes: CopiedVolume[]): Promise<void> {
  for (const v of volumes) {
    const pack = packFolder(v.host, '/');
    await Promise.all([container.putArchive(pack.stream, { path: v.target }), pack.done]);
  }
}

/** Remove the volumes (after their container); one that is gone already, or a host that is down, is left to the sweep. */
export async function removeVolumes(docker: Docker, volumes: CopiedVolume[]): Promise<void> {
  await Promise.all(
    volumes.map((v) =>
      docker
        .getVolume(v.name)
        .remove()
        .catch(() => {}),
    ),
  );
}
