/** Start an evaluation: suite, policy, attempts, concurrency (and the turn limit). */
import { useState } from 'react';
import { useRuns } from '../../stores/runs';

export function NewEvalForm() {
  const { start, starting } = useRuns();
  const [suite, setSuite] = useState('tasks/examples');
  const [policy, setPolicy] = useState('oracle');
  const [attempts, setAttempts] = useState(1);
  const [concurrency, setConcurrency] = useState<number | ''>('');
  const [maxTurns, setMaxTurns] = useState(300);
  return (
    <form
      className="new-eval"
      data-testid="new-eval"
      onSubmit={(e) => {
        e.preventDefault();
        void start({
          suite,
          policy,
          attempts,
          ...(concurrency === '' ? {} : { concurrency }),
          harness: { maxTurns, contextStrategy: 'drop-oldest', observationChars: 10_000 },
        });
      }}
    >
      <label>
        suite <input value={suite} onChange={(e) => setSuite(e.target.value)} placeholder="a task folder, a folder of tasks, or a pack" name="suite" size={28} />
      </label>
      <label>
        policy <input value={policy} onChange={(e) => setPolicy(e.target.value)} list="policy-specs" name="policy" size={32} />
        <datalist id="policy-specs">
          <option value="oracle" />
          <option value="replay:FILE" />
          <option value="openai:http://127.0.0.1:8000/v1#MODEL" />
          <option value="onnx:CHECKPOINT" />
        </datalist>
      </label>
      <label>
        attempts <input type="number" min={1} max={100} value={attempts} onChange={(e) => setAttempts(Number(e.target.value))} name="attempts" />
      </label>
      <label>
        concurrency <input type="number" min={1} max={256} value={concurrency} placeholder="cores" onChange={(e) => setConcurrency(e.target.value === '' ? '' : Number(e.target.value))} name="concurrency" />
      </label>
      <label>
        max turns <input type="number" min={1} value={maxTurns} onChange={(e) => setMaxTurns(Number(e.target.value))} name="maxTurns" />
      </label>
      <button type="submit" disabled={starting || !suite || !policy}>
        {starting ? 'Starting…' : 'Start evaluation'}
      </button>
    </form>
  );
}
