import { expect, test } from 'vitest';
import { nearestStep } from '../../../renderer/src/components/training/chart-pick';

test('nearestStep: the step of the point nearest to the clicked x, on the chosen axis; the first of equals; null without points', () => {
  const points = { step: [10, 20, 30], wall: [0, 50, 60], tokens: [100, 200, 400] };
  expect(nearestStep(points, 'step', 24)).toBe(20);
  expect(nearestStep(points, 'wall', 40)).toBe(20);
  expect(nearestStep(points, 'tokens', 350)).toBe(30);
  expect(nearestStep(points, 'step', 15)).toBe(10);
  expect(nearestStep({ step: [], wall: [], tokens: [] }, 'step', 3)).toBeNull();
});
