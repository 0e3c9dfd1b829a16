/** Entry point of the `t1lab` command (bundled to dist/node/cli.js; `bin/t1lab.js` runs it). */
import { reexecWithAllocatorTunables } from '../../native/onnx/allocator-env';

// Before anything is loaded: training sessions need glibc's allocator tunables, which only a process start reads.
reexecWithAllocatorTunables();
const { runCli } = await import('./main');
process.exitCode = await runCli(process.argv.slice(2));
