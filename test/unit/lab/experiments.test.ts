import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, describe, expect, test } from 'vitest';
import { writeAblationReport, suiteRows } from '../../../electron/lab/experiments/ablate-report';
import { cellConfig, runAblation } from '../../../electron/lab/experiments/ablate';
import { seedBand } from '../../../electron/lab/experiments/cell-results';
import { baselineCell, cellName, gridCells, parseGrid } from '../../../electron/lab/experiments/grid';
import { writeAblationFixture } from '../../helpers/ablation-fixture';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

describe('ablation grids', () => {
  test('axes, the cartesian product of cells, the baseline, stable names', () => {
    const axes = parseGrid('reward=dense,binary tito=exact,retokenize r3=on,off');
    expect(axes.map((a) => a.key)).toEqual(['reward', 'tito', 'r3']);
    const cells = gridCells(axes);
    expect(cells).toHaveLength(8);
    expect(new Set(cells.map(cellName)).size).toBe(8);
    expect(baselineCell(axes)).toEqual({ reward: 'dense', tito: 'exact', r3: 'on' });
    expect(cellName(baselineCell(axes))).toBe('reward-dense_tito-exact_r3-on');
  });

  test.each([
    ['', 'no axis'],
    ['reward', 'is not KEY=V1,V2'],
    ['Reward=a', 'is not a config key'],
    ['reward=a,a', 'repeats a value'],
    ['reward=a reward=b', 'given twice'],
    ['reward=a,', 'is empty'],
  ])('a bad grid %j is refused naming the problem', (spec, message) => {
    expect(() => parseGrid(spec)).toThrow(message);
  });

  test("a cell's config is the base config with its values set where the keys live", () => {
    const base = '[model]\ninit = "sft"\n\n[ppo]\nreward = "dense"\nclip_low = 0.2\n';
    const config = parseToml(cellConfig(base, { reward: 'binary', r3: 'off', clip_low: '0.1' })) as Record<
      string,
      Record<string, unknown>
    >;
    expect(config.ppo).toEqual({ reward: 'binary', clip_low: 0.1, r3: 'off' });
    expect(config.model).toEqual({ init: 'sft' });
  });

  test('seed bands: mean with min..max per step', () => {
    expect(
      seedBand([
        [
          { x: 1, y: 1 },
          { x: 2, y: 3 },
        ],
        [{ x: 1, y: 3 }],
      ]),
    ).toEqual([
      { x: 1, y: 2, lo: 1, hi: 3 },
      { x: 2, y: 3, lo: 3, hi: 3 },
    ]);
  });
});

describe('the ablation report', () => {
  test('final rates with intervals, paired tests against the baseline, gap, guard flags, curves', async () => {
    const cells = await writeAblationFixture(tmp.path);
    const rows = suiteRows(cells, { reward: 'dense' });
    const dense = rows.find((r) => r.cell === 'reward-dense')!;
    const binary = rows.find((r) => r.cell === 'reward-binary')!;
    expect(dense.resolvedRate).toBeCloseTo(0.7, 12);
    expect(dense.vsBaseline).toBeNull();
    expect(binary.resolvedRate).toBeCloseTo(0.3, 12);
    expect(binary.vsBaseline!.diff).toBeCloseTo(-0.4, 12);
    // 4 tasks the baseline resolves under both seeds and the binary cell under neither: the seeds are pooled
    // as attempts of a task, so the tasks are the paired units (sign-flip, 2 of 16 patterns), not the 8
    // seed-attempt pairs McNemar would count (2/256).
    expect(binary.vsBaseline!.p).toBeCloseTo(2 / 16, 12);

    const paths = writeAblationReport(
      tmp.path,
      [{ key: 'reward', values: ['dense', 'binary'] }],
      { reward: 'dense' },
      cells,
    );
    const md = readFileSync(paths.markdown, 'utf8');
    expect(md).toContain('| reward-binary | nano-bench | 10 | 30.0% |');
    expect(md).toContain('-40.0 pp');
    expect(md).toContain('task-3::output exists');
    expect(md).toMatch(/reward=dense \| 2 \| 2\.00e-6 \| 0\.0030 \|/);
    const html = readFileSync(paths.html, 'utf8');
    expect(html).toContain('<svg');
    expect(html.match(/<polyline/g)).toHaveLength(4);
    expect(join(tmp.path, 'report.html')).toBe(paths.html);
  });

  test('a cell where no task is ever resolved still gets an interval with width (Wilson over tasks)', async () => {
    const cells = await writeAblationFixture(join(tmp.path, 'none'), { dense: 0, binary: 0 });
    const dense = suiteRows(cells, { reward: 'dense' }).find((r) => r.cell === 'reward-dense')!;
    expect(dense.resolvedRate).toBe(0);
    // 0 of 10 tasks: the Wilson upper bound, not the bootstrap's collapsed [0, 0].
    expect(dense.ci95[0]).toBeCloseTo(0, 12);
    expect(dense.ci95[1]).toBeCloseTo(0.2775, 3);
  });
});

describe('ablation input', () => {
  const base = { grid: 'reward=dense,binary', seeds: 1, evalSuites: [] as string[] };

  test('a missing config, a malformed one and a damaged plan are named, before any run starts', async () => {
    const out = join(tmp.path, 'bad-input');
    await expect(runAblation({ ...base, config: join(tmp.path, 'none.toml'), out })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `--config: ${join(tmp.path, 'none.toml')} does not exist`,
    });
    const broken = join(tmp.path, 'broken.toml');
    writeFileSync(broken, '[ppo\nsteps = ');
    await expect(runAblation({ ...base, config: broken, out })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining(`--config ${broken}: not valid TOML`),
    });
    const good = join(tmp.path, 'good.toml');
    writeFileSync(good, '[ppo]\nsteps = 1\n');
    const damaged = join(tmp.path, 'damaged');
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, 'ablation.json'), '{"grid": ');
    await expect(runAblation({ ...base, config: good, out: damaged })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`${join(damaged, 'ablation.json')} is not an ablation plan`),
    });
    expect(readFileSync(join(damaged, 'ablation.json'), 'utf8')).toBe('{"grid": ');
  });
});
