// Oracle feasibility of a pack under a budget (turns incl. submit, tokens per call), with and without the preamble.
import { loadTaskSource, solutionCommands } from '../../../electron/lab/tasks';
import { withoutPreamble } from '../../../electron/agent/policy/oracle-preamble';
import { createProtocol } from '../../../electron/agent/protocol';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
const [pack, turnsS, ...tokenList] = process.argv.slice(2);
const tok = loadTokenizerFile('models/nano-sft');
const protocol = createProtocol('hermes');
const src = await loadTaskSource(pack!);
const turns = Number(turnsS);
const out: Record<string, unknown> = { pack, tasks: src.tasks.length, turns };
for (const skip of [false, true])
  for (const tk of tokenList.map(Number)) {
    let ok = 0;
    let calls = 0;
    let cut = 0;
    const byFam: Record<string, [number, number]> = {};
    for (const t of src.tasks) {
      const all = solutionCommands(t);
      const cmds = skip ? withoutPreamble(all) : all;
      const lens = cmds.map(
        (c) =>
          tok.encode(protocol.writeAction({ tool: 'bash', command: c, ...(skip ? {} : { timeoutSec: 600 }) }, 'c').text)
            .length + 1,
      );
      calls += lens.length;
      cut += lens.filter((n) => n > tk).length;
      const fam = t.id.replace(/-[0-9a-z]+$/, '');
      const f = (byFam[fam] ??= [0, 0]);
      f[1]++;
      if (cmds.length + 1 <= turns && lens.every((n) => n <= tk)) {
        ok++;
        f[0]++;
      }
    }
    out[`${skip ? 'noPreamble' : 'preamble'}@${tk}`] = {
      feasible: ok,
      share: +(ok / src.tasks.length).toFixed(3),
      cutCalls: +(cut / calls).toFixed(3),
      byFamily: Object.fromEntries(Object.entries(byFam).map(([k, [a, b]]) => [k, `${a}/${b}`])),
    };
  }
console.log(JSON.stringify(out, null, 1));
