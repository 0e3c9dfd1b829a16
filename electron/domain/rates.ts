/**
 * How rates are written in tables and reports (CLI, markdown, HTML): one place, so that a resolved rate
 * and a difference between two rates read the same in `t1lab compare`, `eval`, the ablation and the
 * reproduction reports.
 */

/** 0.125 -> "12.5%". */
export const formatRate = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A difference of rates in percentage points, signed: 0.05 -> "+5.0 pp". */
export const formatPoints = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} pp`;
