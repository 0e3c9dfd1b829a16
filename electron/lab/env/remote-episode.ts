/**
 * One episode driven from outside the lab (the environment service): the lab's own episode
 * (runTaskEpisode: set-up, recorded sandboxed shell, agent loop, verifier, episode folder) with a policy
 * whose every turn is the next action a client sends. `start` resolves when the shell waits for the first
 * action; `act` delivers one and resolves with what it did, or with the verifier's verdict when the episode
 * ended. The client's token never reaches the policy, the trajectory or the sandbox.
 */
import type { ShellSession } from '../../../native/pty/types';
import type { Policy, PolicyEpisode, PolicyReply, PolicyRequest } from '../../agent/policy/types';
import { ZERO_USAGE } from '../../agent/policy/types';
import { actionToToolCall } from '../../agent/protocol/actions';
import type { Action, Turn } from '../../domain/trajectory';
import { LabError } from '../../ipc/common/errors';
import type { EpisodeOutcome, EpisodeSpec } from '../runs/run-episode';
import { runTaskEpisode } from '../runs/run-episode';

/** What the policy reports to the driver, in order. */
type Event =
  { kind: 'ask' } | { kind: 'turn'; turn: Turn } | { kind: 'end'; outcome: EpisodeOutcome | null; error: Error | null };

export type StepResult =
  | { kind: 'turn'; turn: Turn }
  | { kind: 'end'; outcome: EpisodeOutcome | null; error: Error | null; turn: Turn | null };

/** The policy id recorded in trajectories of episodes driven through the environment service. */
export const REMOTE_POLICY_ID = 'env:remote';

/** A queue of events with one waiting reader. */
class Events {
  private readonly queue: Event[] = [];
  private waiter: ((e: Event) => void) | null = null;
  push(e: Event): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(e);
    } else this.queue.push(e);
  }
  next(): Promise<Event> {
    const e = this.queue.shift();
    if (e) return Promise.resolve(e);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

export class RemoteEpisode {
  private readonly events = new Events();
  private pending: { resolve: (reply: PolicyReply) => void; reject: (e: Error) => void } | null = null;
  private shell: ShellSession | null = null;
  private ended = false;
  private turns = 0;
  readonly outcome: Promise<EpisodeOutcome | null>;
  private readonly abort = new AbortController();

  constructor(spec: Omit<EpisodeSpec, 'policy' | 'signal' | 'onTurn' | 'onShell'>) {
    const policy = this.policy();
    this.outcome = runTaskEpisode({
      ...spec,
      policy,
      signal: this.abort.signal,
      onTurn: (turn) => this.events.push({ kind: 'turn', turn }),
      onShell: (s) => (this.shell = s),
    }).then(
      (outcome) => {
        this.ended = true;
        this.events.push({ kind: 'end', outcome, error: null });
        return outcome;
      },
      (error: unknown) => {
        this.ended = true;
        this.events.push({ kind: 'end', outcome: null, error: error as Error });
        return null;
      },
    );
  }

  private policy(): Policy {
    const ask = (request: PolicyRequest) =>
      new Promise<PolicyReply>((resolve, reject) => {
        if (request.signal.aborted) return reject(new Error('the episode ended'));
        this.pending = { resolve, reject };
        request.signal.addEventListener('abort', () => reject(new Error('the episode ended')), { once: true });
        this.events.push({ kind: 'ask' });
      });
    const episode: PolicyEpisode = { turn: ask };
    return {
      id: REMOTE_POLICY_ID,
      protocol: 'tools',
      model: null,
      contextWindow: null,
      maxCompletionTokens: 0,
      startEpisode: () => Promise.resolve(episode),
      close: () => Promise.resolve(),
    };
  }

  /** Until the shell waits for the first action (null), or the episode ended first (set-up failed). */
  async start(): Promise<Extract<StepResult, { kind: 'end' }> | null> {
    const e = await this.events.next();
    if (e.kind === 'ask') return null;
    if (e.kind === 'end') return { ...e, turn: null };
    throw new LabError('INTERNAL', 'the episode reported a turn before its first action');
  }

  get done(): boolean {
    return this.ended;
  }

  get steps(): number {
    return this.turns;
  }

  /** The agent's screen now (the current shell's visible lines). */
  screen(): string[] {
    try {
      return this.shell?.screen().lines.map((l) => l.trimEnd()) ?? [];
    } catch {
      return [];
    }
  }

  /** Deliver one action; resolves with its turn, or with the episode's end (a submit, the deadline, a failure). */
  async act(action: Action): Promise<StepResult> {
    const pending = this.pending;
    if (!pending || this.ended) throw new LabError('CONFLICT', 'the episode is not waiting for an action');
    this.pending = null;
    this.turns++;
    const call = actionToToolCall(action);
    pending.resolve({
      text: '',
      toolCalls: [{ id: `call_${this.turns}`, name: call.name, arguments: JSON.stringify(call.arguments) }],
      usage: ZERO_USAGE,
      costUsd: null,
      finishReason: 'tool_calls',
    });
    let last: Turn | null = null;
    for (;;) {
      const e = await this.events.next();
      if (e.kind === 'turn') last = e.turn;
      else if (e.kind === 'ask') {
        if (last) return { kind: 'turn', turn: last };
      } else return { kind: 'end', outcome: e.outcome, error: e.error, turn: last };
    }
  }

  /** Stop the episode (the session closed or expired): its sandbox is removed, its record still written. */
  async cancel(reason: Error): Promise<EpisodeOutcome | null> {
    if (!this.abort.signal.aborted) this.abort.abort(reason);
    this.pending?.reject(reason);
    this.pending = null;
    return this.outcome;
  }
}
