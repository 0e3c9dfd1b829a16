/** What a click on a metric chart picks: the step of the primary run's point nearest to the clicked x. */
import type { SeriesPoints, XAxis } from '../../../../electron/domain/training-metrics';

/** The step of the point whose x (step, wall time or tokens) is nearest to `x`; the first of equals; null without points. */
export function nearestStep(points: Pick<SeriesPoints, 'step' | XAxis>, axis: XAxis, x: number): number | null {
  const xs = points[axis];
  if (!points.step.length) return null;
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (Math.abs(xs[i]! - x) < Math.abs(xs[best]! - x)) best = i;
  return points.step[best]!;
}
