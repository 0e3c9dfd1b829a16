import { useEffect, useState } from 'react';
import type { ModelSummary, PlaygroundResult } from '../../../electron/domain/models';
import { KeyValue } from '../components/KeyValue';
import { ExpertHeatmap } from '../components/ExpertHeatmap';
import { useModels } from '../stores/models';

function size(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function millions(n: number | null): string {
  return n === null ? '—' : `${(n / 1e6).toFixed(2)}M`;
}

/** Log-prob to a colour: green for likely tokens, through yellow, to red for unlikely ones. */
export function logprobColor(logprob: number): string {
  const p = Math.exp(Math.max(-20, logprob));
  const hue = Math.round(120 * Math.min(1, Math.max(0, (Math.log10(Math.max(p, 1e-6)) + 6) / 6)));
  return `hsl(${hue} 60% 30%)`;
}

function CheckpointList({ checkpoints, selected, onSelect }: { checkpoints: ModelSummary[]; selected: string | null; onSelect: (p: string) => void }) {
  if (!checkpoints.length) return <div className="muted">No checkpoints yet. Create one with <code>t1lab model init --preset nano --out DIR</code> and add its folder above.</div>;
  return (
    <table className="grid" data-testid="checkpoints">
      <thead>
        <tr>
          <th>name</th>
          <th>format</th>
          <th>parameters</th>
          <th>size</th>
          <th>provider</th>
          <th>status</th>
        </tr>
      </thead>
      <tbody>
        {checkpoints.map((c) => (
          <tr key={c.path} className={c.path === selected ? 'selected' : ''} onClick={() => onSelect(c.path)} style={{ cursor: 'pointer' }} title={c.path}>
            <td>{c.name}</td>
            <td>{c.format}</td>
            <td>{millions(c.parameters)}</td>
            <td>{size(c.totalBytes)}</td>
            <td>{c.provider ? c.provider.name : <span className="muted">not loaded</span>}</td>
            <td className={c.status === 'ok' ? 'ok' : 'warn'}>{c.status === 'ok' ? 'ok' : c.error}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CheckpointDetails({ c }: { c: ModelSummary }) {
  return (
    <div data-testid="checkpoint-details">
      <h2>{c.name}</h2>
      <KeyValue
        rows={[
          ['path', c.path],
          ['parameters', `${millions(c.parameters)} (${millions(c.activeParameters)} active per token)`],
          ['tokenizer', c.tokenizerVocab === null ? '—' : `${c.tokenizerVocab} tokens`],
          ['provider', c.provider ? `${c.provider.name}${c.provider.fallbackReason ? ` — ${c.provider.fallbackReason}` : ''}` : 'not loaded yet'],
          ...Object.entries(c.config ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
        ]}
      />
      <table className="grid files">
        <thead>
          <tr>
            <th>file</th>
            <th>size</th>
            <th>sha256</th>
          </tr>
        </thead>
        <tbody>
          {c.files.map((f) => (
            <tr key={f.name}>
              <td>{f.name}</td>
              <td>{size(f.bytes)}</td>
              <td className="hash">{f.sha256 ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SampledTokens({ sample, selected, onToggle }: { sample: PlaygroundResult; selected: number[]; onToggle: (i: number, extend: boolean) => void }) {
  return (
    <div className="tokens" data-testid="sampled-tokens">
      {sample.tokens.map((t, i) => (
        <span
          key={i}
          className={selected.includes(i) ? 'token picked' : 'token'}
          style={{ background: logprobColor(t.logprob) }}
          title={`id ${t.id}, log-prob ${t.logprob.toFixed(3)}${t.experts ? `\n${t.experts.map((e, l) => `layer ${l}: ${e.join(', ')}`).join('\n')}` : ''}`}
          onClick={(e) => onToggle(i, e.shiftKey)}
          data-logprob={t.logprob}
        >
          {t.text.replace(/\n/g, '↵\n') || '∅'}
        </span>
      ))}
    </div>
  );
}

function Playground() {
  const { sample, sampling, sampleError, runSample, selectedTokens, toggleToken } = useModels();
  const [prompt, setPrompt] = useState('<|im_start|>user\nList the files in /app.<|im_end|>\n<|im_start|>assistant\n');
  const [maxTokens, setMaxTokens] = useState(48);
  const [temperature, setTemperature] = useState(1);
  const [seed, setSeed] = useState('');
  const [provider, setProvider] = useState<'auto' | 'cpu' | 'cuda'>('auto');
  const chosen = sample ? (selectedTokens.length ? selectedTokens : sample.tokens.map((_, i) => i)) : [];
  return (
    <div className="playground">
      <h2>Playground</h2>
      <textarea value={prompt} onChange={(e) => setPrompt(e.target.value)} rows={4} aria-label="prompt" />
      <div className="toolbar">
        <label>
          max tokens <input type="number" min={1} max={4096} value={maxTokens} onChange={(e) => setMaxTokens(Number(e.target.value))} />
        </label>
        <label>
          temperature <input type="number" min={0} max={5} step={0.1} value={temperature} onChange={(e) => setTemperature(Number(e.target.value))} />
        </label>
        <label>
          seed <input value={seed} placeholder="random" onChange={(e) => setSeed(e.target.value.replace(/\D/g, ''))} size={10} />
        </label>
        <label>
          provider{' '}
          <select value={provider} onChange={(e) => setProvider(e.target.value as 'auto')}>
            <option value="auto">auto</option>
            <option value="cpu">cpu</option>
            <option value="cuda">cuda</option>
          </select>
        </label>
        <button disabled={sampling} onClick={() => void runSample({ prompt, maxTokens, temperature, seed: seed === '' ? undefined : Number(seed), provider })}>
          {sampling ? 'Sampling…' : 'Sample'}
        </button>
      </div>
      {sampleError && <div className="error" role="alert">{sampleError}</div>}
      {sample && (
        <>
          <div className="muted" data-testid="sample-meta">
            {sample.tokens.length} tokens, {sample.stopReason}, seed {sample.seed}, on {sample.provider}
            {sample.providerFallbackReason ? ` (${sample.providerFallbackReason})` : ''}, prefill {sample.timing.prefillMs.toFixed(0)} ms, decode {sample.timing.decodeMs.toFixed(0)} ms. Click tokens (shift for a range) to pick which routing the heatmap shows.
          </div>
          <SampledTokens sample={sample} selected={selectedTokens} onToggle={toggleToken} />
          {sample.numExperts !== null && sample.tokens[0]?.experts ? (
            <ExpertHeatmap tokens={chosen.map((i) => sample.tokens[i]!)} numExperts={sample.numExperts} />
          ) : (
            <div className="muted">No routing: an external checkpoint.</div>
          )}
        </>
      )}
    </div>
  );
}

export function ModelsPage() {
  const { checkpoints, roots, selected, loading, error, refresh, select, addRoot } = useModels();
  const [root, setRoot] = useState('');
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const current = checkpoints.find((c) => c.path === selected) ?? null;
  return (
    <section data-testid="page-models">
      <div className="toolbar">
        <button onClick={() => void refresh()} disabled={loading}>
          {loading ? 'Listing…' : 'Refresh'}
        </button>
        <input value={root} onChange={(e) => setRoot(e.target.value)} placeholder="another folder with checkpoints" size={40} aria-label="checkpoint folder" />
        <button onClick={() => void addRoot(root)}>Add folder</button>
        <span className="muted">{roots.join(', ')}</span>
      </div>
      {error && <div className="error" role="alert">{error}</div>}
      <CheckpointList checkpoints={checkpoints} selected={selected} onSelect={select} />
      {current && <CheckpointDetails c={current} />}
      {current?.status === 'ok' && <Playground />}
    </section>
  );
}
