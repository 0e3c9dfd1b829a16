/**
 * Workers as Electron utilityProcesses (the packaged app cannot child_process.fork once the runAsNode fuse
 * is off). Must be used after app 'ready': forking before it crashes.
 */
import { describeExit, type ExitInfo, type WorkerLauncher } from '../workers/launcher';
import type { ElectronDeps } from './deps';

export function utilityLauncher(utilityProcess: ElectronDeps['utilityProcess']): WorkerLauncher {
  return {
    kind: 'utility',
    launch(spec) {
      const child = utilityProcess.fork(spec.modulePath, spec.args ?? [], {
        serviceName: `t1lab-${spec.name}`,
        env: { ...process.env, ...spec.env, T1LAB_WORKER: spec.name },
        execArgv: spec.execArgv,
        stdio: 'inherit',
      });
      let exited = false;
      const exitListeners = new Set<(info: ExitInfo) => void>();
      child.on('exit', (code) => {
        if (exited) return;
        exited = true;
        for (const l of exitListeners) l({ code, signal: null });
      });
      return {
        get pid() {
          return child.pid ?? null;
        },
        post: (frame) => child.postMessage(frame),
        onMessage(listener) {
          child.on('message', listener);
          return { dispose: () => child.off?.('message', listener) };
        },
        onExitInfo(listener) {
          exitListeners.add(listener);
          return { dispose: () => exitListeners.delete(listener) };
        },
        onExit(listener) {
          const wrapped = (info: ExitInfo) => listener(describeExit(info));
          exitListeners.add(wrapped);
          return { dispose: () => exitListeners.delete(wrapped) };
        },
        kill: () => {
          if (!exited) child.kill();
        },
      };
    },
  };
}
