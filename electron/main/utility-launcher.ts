/**
 * Workers as Electron utilityProcesses (the packaged app cannot child_process.fork once the runAsNode fuse
 * is off). Must be used after app 'ready': forking before it crashes.
 */
import { exitNotifier, type WorkerLauncher } from '../processes/launcher';
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
      const exit = exitNotifier();
      child.on('exit', (code) => exit.fire({ code, signal: null }));
      return {
        get pid() {
          return child.pid ?? null;
        },
        post: (frame) => child.postMessage(frame),
        onMessage(listener) {
          child.on('message', listener);
          return { dispose: () => child.off?.('message', listener) };
        },
        onExitInfo: exit.onExitInfo,
        onExit: exit.onExit,
        kill: () => {
          if (!exit.exited) child.kill();
        },
      };
    },
  };
}
