/** The three rewards from per-assertion results (issue 4): dense = passed, fraction = passed/total, binary = all passed. */
import type { AssertionResult, Reward } from '../../domain/tasks';

export function countPassed(assertions: readonly AssertionResult[]): { passed: number; total: number } {
  return { passed: assertions.filter((a) => a.status === 'passed').length, total: assertions.length };
}

export function computeReward(assertions: readonly AssertionResult[]): Reward {
  const { passed, total } = countPassed(assertions);
  return { dense: passed, fraction: total > 0 ? passed / total : 0, binary: total > 0 && passed === total ? 1 : 0 };
}
