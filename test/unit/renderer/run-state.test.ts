import { expect, test } from 'vitest';
import { displayedRunState } from '../../../renderer/src/components/runs/run-state';

test('displayedRunState: the live progress beats the list; a run the list calls running but whose progress stopped is complete or incomplete', () => {
  const listed = { state: 'running', done: 3, total: 10 } as const;
  expect(displayedRunState(listed, undefined)).toBe('running');
  expect(displayedRunState({ ...listed, state: 'complete' }, { state: 'running', done: 4 })).toBe('running');
  expect(displayedRunState(listed, { state: 'done', done: 10 })).toBe('complete');
  expect(displayedRunState(listed, { state: 'cancelled', done: 6 })).toBe('incomplete');
  expect(displayedRunState({ ...listed, done: 10 }, { state: 'failed', done: 2 })).toBe('incomplete'); // the live count wins
  expect(displayedRunState({ ...listed, state: 'incomplete' }, { state: 'done', done: 10 })).toBe('incomplete');
});
