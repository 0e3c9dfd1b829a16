/** Context-window events of an episode, in words: what did not fit, by how much, and what was done. */
import type { ContextEvent, StopReason } from '../../../../electron/domain/trajectory';

export function describeContextEvent(e: ContextEvent, stopped: boolean): string {
  const before = `before turn ${e.turn + 1} the conversation needed ${e.tokensBefore.toLocaleString()} tokens; the budget is ${e.budget.toLocaleString()} (the window less what is kept for the reply)`;
  if (e.droppedTurns.length === 0) {
    return stopped
      ? `${before}. Nothing could be dropped (the system prompt and the instruction alone do not fit), so the episode stopped.`
      : `${before}. Nothing could be dropped.`;
  }
  const first = e.droppedTurns[0]! + 1;
  const last = e.droppedTurns[e.droppedTurns.length - 1]! + 1;
  const which = first === last ? `turn ${first}` : `turns ${first}–${last}`;
  const after = `${e.strategy === 'drop-oldest' ? 'dropped' : 'would drop'} ${which}, leaving ${e.tokensAfter.toLocaleString()} tokens`;
  return `${before}: ${after}${stopped && e.tokensAfter > e.budget ? ', still too many, so the episode stopped' : ''}.`;
}

export function describeContext(events: ContextEvent[], stopReason: StopReason): string[] {
  return events.map((e, i) => describeContextEvent(e, stopReason === 'context' && i === events.length - 1));
}
