/** What the new-evaluation form starts from, when another page prepares it ("evaluate this task"). */
import { create } from 'zustand';

interface EvalDraft {
  suite: string;
  /** Task ids to run from the suite; null: all of them. */
  only: string[] | null;
  /** Bumped on each prefill so the form takes the new values. */
  version: number;
  prefill(suite: string, only: string[] | null): void;
}

export const useEvalDraft = create<EvalDraft>((set, get) => ({
  suite: 'tasks/examples',
  only: null,
  version: 0,
  prefill(suite, only) {
    set({ suite, only, version: get().version + 1 });
  },
}));
