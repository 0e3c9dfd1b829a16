/** Entry point of the `t1lab` command (bundled to dist/node/cli.js; `bin/t1lab.js` runs it). */
import { runCli } from './main';

process.exitCode = await runCli(process.argv.slice(2));
