/**
 * The Models page's playground: sample a checkpoint in the policy worker, as raw text (completion) or as a
 * chat (ChatML turns; the reply joins the conversation), with temperature, top-p, top-k, stop sequences,
 * seed, provider and threads. Tokens stream in as the policy worker samples them, and Stop ends the decoding
 * there. Tokens are coloured by log-prob (viridis, with a legend); hovering one lists the most likely tokens at
 * its position, clicking one shows them with their log-probs and picks which routing the expert heatmap shows.
 */
import { useState } from 'react';
import { PlaygroundLibrary } from './PlaygroundLibrary';
import type { PlaygroundToken } from '../../../../electron/domain/models';
import { useModels } from '../../stores/models';
import { ExpertHeatmap } from '../ExpertHeatmap';
import { FieldError } from '../common/FieldError';
import { tokenDisplayText } from '../common/token-text';
import { LogprobLegend } from './LogprobLegend';
import { logprobColor } from './logprob-scale';
import { alternativesTitle, TokenAlternatives } from './TokenAlternatives';

type Mode = 'completion' | 'chat';
interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const IM_END = '<|im_end|>';

/** ChatML, as the lab's checkpoints are trained on; ends with the assistant header so the model answers. */
export function renderChat(turns: ChatTurn[]): string {
  return turns.map((t) => `<|im_start|>${t.role}\n${t.content}${IM_END}\n`).join('') + '<|im_start|>assistant\n';
}

function SampledTokens({ tokens, selected, onToggle, streaming }: { tokens: PlaygroundToken[]; selected: number[]; onToggle: (i: number, extend: boolean) => void; streaming: boolean }) {
  return (
    <div className="tokens" data-testid="sampled-tokens" data-streaming={streaming ? '1' : '0'}>
      {tokens.map((t, i) => (
        <span
          key={i}
          className={selected.includes(i) ? 'token picked' : 'token'}
          style={logprobColor(t.logprob)}
          title={`id ${t.id}, log-prob ${t.logprob.toFixed(3)} (p ${Math.exp(t.logprob).toPrecision(2)})${t.experts ? `\n${t.experts.map((e, l) => `layer ${l}: ${e.join(', ')}`).join('\n')}` : ''}${alternativesTitle(t)}`}
          onClick={(e) => onToggle(i, e.shiftKey)}
          data-logprob={t.logprob}
          data-id={t.id}
        >
          {tokenDisplayText(t.text)}
        </span>
      ))}
    </div>
  );
}

function rate(tokens: number, ms: number): string {
  return ms > 0 ? `${((tokens * 1000) / ms).toFixed(1)} tokens/s` : '—';
}

export function Playground() {
  const { sample, sampling, sampleError, runSample, selectedTokens, toggleToken, clearSampleError, streamed, stopSample, stopping } = useModels();
  const [alternatives, setAlternatives] = useState(5);
  /** The token whose alternatives are shown (the last one clicked). */
  const [focused, setFocused] = useState<number | null>(null);
  const [mode, setMode] = useState<Mode>('completion');
  const [prompt, setPrompt] = useState('<|im_start|>user\nList the files in /app.<|im_end|>\n<|im_start|>assistant\n');
  const [chat, setChat] = useState<ChatTurn[]>([{ role: 'system', content: 'You are a helpful terminal agent.' }]);
  const [message, setMessage] = useState('List the files in /app.');
  const [maxTokens, setMaxTokens] = useState(48);
  const [temperature, setTemperature] = useState(1);
  const [topP, setTopP] = useState(1);
  const [topK, setTopK] = useState(0);
  const [stop, setStop] = useState('');
  const [seed, setSeed] = useState('');
  const [threads, setThreads] = useState('');
  const [provider, setProvider] = useState<'auto' | 'cpu' | 'cuda'>('auto');
  const chosen = sample ? (selectedTokens.length ? selectedTokens : sample.tokens.map((_, i) => i)) : [];
  const invalid = (field: string) => (sampleError?.field === field ? 'invalid' : undefined);
  const touch = (field: string) => {
    if (sampleError?.field === field) clearSampleError();
  };

  const sampleNow = async () => {
    setFocused(null);
    const stops = stop.split('\n').filter((s) => s.length > 0);
    const conversation = mode === 'chat' ? [...chat, { role: 'user' as const, content: message }] : null;
    const text = conversation ? renderChat(conversation) : prompt;
    await runSample({
      prompt: text,
      maxTokens,
      temperature,
      topP,
      topK,
      stop: conversation ? [...new Set([...stops, IM_END])] : stops,
      seed: seed === '' ? undefined : Number(seed),
      provider,
      alternatives,
      ...(threads === '' ? {} : { threads: Number(threads) }),
    });
    const result = useModels.getState().sample;
    if (conversation && result && !useModels.getState().sampleError) {
      const reply = result.tokens.map((t) => t.text).join('').replace(IM_END, '').trim();
      setChat([...conversation, { role: 'assistant', content: reply }]);
      setMessage('');
    }
  };

  return (
    <div className="playground" data-testid="playground">
      <h2>Playground</h2>
      <div className="toolbar" role="radiogroup" aria-label="mode">
        {(['completion', 'chat'] as const).map((m) => (
          <label key={m}>
            <input type="radio" name="mode" checked={mode === m} onChange={() => setMode(m)} /> {m}
          </label>
        ))}
      </div>
      <PlaygroundLibrary
        settings={{ temperature, topP, topK, maxTokens, stop }}
        onSettings={(p) => {
          setTemperature(p.temperature);
          setTopP(p.topP);
          setTopK(p.topK);
          setMaxTokens(p.maxTokens);
          setStop(p.stop);
        }}
        prompt={{ mode, prompt, system: chat[0]?.content ?? '', message }}
        onPrompt={(p) => {
          setMode(p.mode);
          setPrompt(p.prompt);
          setChat([{ role: 'system', content: p.system }]);
          setMessage(p.message);
        }}
      />
      {mode === 'completion' ? (
        <textarea value={prompt} onChange={(e) => { setPrompt(e.target.value); touch('prompt'); }} rows={4} aria-label="prompt" className={invalid('prompt')} />
      ) : (
        <div className="chat" data-testid="chat">
          {chat.map((t, i) => (
            <div key={i} className={`chat-turn chat-${t.role}`}>
              <span className="chat-role">{t.role}</span>
              <span className="chat-content">{t.content}</span>
            </div>
          ))}
          <textarea value={message} onChange={(e) => setMessage(e.target.value)} rows={2} aria-label="message" placeholder="your message" />
          <button type="button" className="secondary" onClick={() => setChat(chat.slice(0, 1))} disabled={chat.length <= 1}>
            Clear conversation
          </button>
        </div>
      )}
      <div className="toolbar playground-options">
        <label>
          max tokens <input type="number" className={invalid('maxTokens')} value={maxTokens} onChange={(e) => { setMaxTokens(Number(e.target.value)); touch('maxTokens'); }} aria-label="max tokens" />
        </label>
        <label>
          temperature <input type="number" className={invalid('temperature')} step={0.1} value={temperature} onChange={(e) => { setTemperature(Number(e.target.value)); touch('temperature'); }} aria-label="temperature" />
        </label>
        <label>
          top-p <input type="number" className={invalid('topP')} step={0.05} value={topP} onChange={(e) => { setTopP(Number(e.target.value)); touch('topP'); }} aria-label="top-p" />
        </label>
        <label>
          top-k <input type="number" className={invalid('topK')} value={topK} onChange={(e) => { setTopK(Number(e.target.value)); touch('topK'); }} aria-label="top-k" title="0: off" />
        </label>
        <label>
          seed <input value={seed} placeholder="random" onChange={(e) => setSeed(e.target.value.replace(/\D/g, ''))} size={10} aria-label="seed" />
        </label>
        <label>
          provider{' '}
          <select value={provider} onChange={(e) => setProvider(e.target.value as 'auto')} aria-label="provider">
            <option value="auto">auto</option>
            <option value="cpu">cpu</option>
            <option value="cuda">cuda</option>
          </select>
        </label>
        <label>
          threads <input value={threads} placeholder="default" className={invalid('threads')} onChange={(e) => { setThreads(e.target.value.replace(/\D/g, '')); touch('threads'); }} size={6} aria-label="threads" />
        </label>
        <label className="stop-label">
          stop sequences <textarea value={stop} onChange={(e) => setStop(e.target.value)} rows={1} placeholder="one per line" aria-label="stop sequences" />
        </label>
        <label title="the most likely tokens shown, with log-probs, at each sampled position (0: none)">
          alternatives <input type="number" min={0} max={20} className={invalid('alternatives')} value={alternatives} onChange={(e) => { setAlternatives(Number(e.target.value)); touch('alternatives'); }} aria-label="alternatives" />
        </label>
        <button disabled={sampling || (mode === 'chat' && !message.trim())} onClick={() => void sampleNow()}>
          {sampling ? 'Sampling…' : 'Sample'}
        </button>
        {sampling && (
          <button type="button" className="danger" onClick={() => void stopSample()} disabled={stopping} data-testid="stop-sample">
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
      </div>
      {sampling && (
        <>
          <div className="muted" data-testid="stream-meta">{`${streamed.length} tokens so far…`}</div>
          <SampledTokens tokens={streamed} selected={[]} onToggle={() => {}} streaming />
        </>
      )}
      {sampleError && <FieldError message={sampleError.message} onDismiss={clearSampleError} testId="sample-error" />}
      {sample && !sampling && (
        <>
          <div className="muted" data-testid="sample-meta">
            {sample.tokens.length} tokens, {sample.stopReason}, seed {sample.seed}, on {sample.provider}
            {sample.providerFallbackReason ? ` (${sample.providerFallbackReason})` : ''} · prefill {sample.promptTokens} tokens in {sample.timing.prefillMs.toFixed(0)} ms ({rate(sample.promptTokens, sample.timing.prefillMs)}) · decode{' '}
            <span data-testid="tokens-per-second">{rate(sample.tokens.length, sample.timing.decodeMs)}</span>. Click a token for the most likely tokens at its position and to pick which routing the heatmap shows (shift for a range).
          </div>
          <SampledTokens
            tokens={sample.tokens}
            selected={selectedTokens}
            onToggle={(i, extend) => {
              toggleToken(i, extend);
              setFocused(i);
            }}
            streaming={false}
          />
          <LogprobLegend />
          {focused !== null && sample.tokens[focused] && <TokenAlternatives token={sample.tokens[focused]!} index={focused} />}
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
