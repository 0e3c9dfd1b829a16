/**
 * Task texts for the LM corpus: each task of a suite as an agent transcript in the policy's own format
 * (ChatML, the compact Hermes system prompt, the instruction, the oracle's commands as tool calls, then
 * submit), plus the instruction and the solution script as plain documents. Observations are not invented:
 * real ones come from SFT samples (`t1lab tasks sft-data`), which the corpus can include as well.
 */
import { chatml } from '../../../agent/chat/chatml';
import { createHermesProtocol } from '../../../agent/protocol/hermes';
import { loadTaskSource, solutionCommands, solutionScript } from '../../tasks';
import type { ChatMessage } from '../../../domain/trajectory';

export async function taskDocuments(suite: string, maxTurns = 30): Promise<string[]> {
  const source = await loadTaskSource(suite);
  const protocol = createHermesProtocol();
  const docs: string[] = [];
  for (const task of source.tasks) {
    const system = protocol.systemPrompt({
      maxTurns,
      timeoutSec: task.agent.timeoutSec,
      toolsInTemplate: false,
      compact: true,
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: task.instruction },
    ];
    let commands: string[];
    try {
      commands = solutionCommands(task);
    } catch {
      commands = [];
    }
    for (const [i, command] of commands.entries())
      messages.push({
        role: 'assistant',
        content: protocol.writeAction({ tool: 'bash', command, timeoutSec: task.agent.timeoutSec }, `call_${i}`).text,
      });
    messages.push({ role: 'assistant', content: protocol.writeAction({ tool: 'submit' }, 'call_submit').text });
    docs.push(chatml.render(messages, { addGenerationPrompt: false }));
    docs.push(task.instruction);
    const script = solutionScript(task);
    if (script) docs.push(script);
  }
  return docs;
}
