/**
 * The Models page's playground: sample a checkpoint in the policy worker, as raw text (completion) or as a
 * chat (ChatML turns; the reply joins the conversation), with temperature, top-p, top-k, stop sequences,
 * seed, provider and threads. Tokens stream in as the policy worker samples them, and Stop ends the decoding
 * there. Tokens are coloured by log-prob (viridis, with a legend); hovering one lists the most likely tokens at
 * its position, clicking one shows them with their log-probs and picks which routing the expert heatmap shows.
 * A second model picked **beside** samples the same request at the same time, in a column of its own
 * (SideBySide); Stop stops both. A whole session (models, prompt or chat, settings) is saved under a name
 * and opened again (PlaygroundSessions).
 */
import { useState } from 'react';
import type { ModelSummary } from '../../../../electron/domain/models';
import { PlaygroundLibrary } from './PlaygroundLibrary';
import type { SamplingPreset } from './playground-library';
import { PlaygroundSessions } from './PlaygroundSessions';
import { SideBySide } from './SideBySide';
import { sessionModels, type PlaygroundSession } from './playground-sessions';
import { useModels } from '../../stores/models';
import { ExpertHeatmap } from '../ExpertHeatmap';
import { FieldError } from '../common/FieldError';
import { LogprobLegend } from './LogprobLegend';
import { TokenAlternatives } from './TokenAlternatives';
import { rate, SampledTokens } from './SampledTokens';
import { DEFAULT_SAMPLING, IM_END, sampleRequest, type ChatTurn, type SamplingSettings } from './playground-request';
import { SamplingInputs } from './SamplingInputs';

type Mode = 'completion' | 'chat';

/** A checkpoint's name for a person: one from a training run says which run. */
function labelOf(c: ModelSummary): string {
  return c.lineage?.trainingRun ? `${c.name} (${c.lineage.trainingRun})` : c.name;
}

export function Playground() {
  const { runSample, sampleError, clearSampleError, checkpoints, selected, select, beside, setBeside } = useModels();
  /** What a reopened session named and is not listed now. */
  const [missing, setMissing] = useState<string[]>([]);
  /** The token whose alternatives are shown (the last one clicked). */
  const [focused, setFocused] = useState<number | null>(null);
  const [mode, setMode] = useState<Mode>('completion');
  const [prompt, setPrompt] = useState('<|im_start|>user\nList the files in /app.<|im_end|>\n<|im_start|>assistant\n');
  const [chat, setChat] = useState<ChatTurn[]>([{ role: 'system', content: 'You are a helpful terminal agent.' }]);
  const [message, setMessage] = useState('List the files in /app.');
  const [settings, setSettings] = useState<SamplingSettings>(DEFAULT_SAMPLING);
  const invalid = (field: string) => (sampleError?.field === field ? 'invalid' : undefined);
  const touch = (field: string) => {
    if (sampleError?.field === field) clearSampleError();
  };
  /** Change settings; a field named in the last error is cleared of it. */
  const update = (patch: Partial<SamplingSettings>, field?: string) => {
    setSettings((s) => ({ ...s, ...patch }));
    if (field) touch(field);
  };

  const usable = checkpoints.filter((c) => c.status === 'ok');
  const nameOf = (path: string) => {
    const c = checkpoints.find((x) => x.path === path);
    return c ? labelOf(c) : path;
  };
  const openSession = (s: PlaygroundSession) => {
    const found = sessionModels(
      s,
      usable.map((c) => c.path),
    );
    if (found.model) select(found.model);
    setBeside(found.beside);
    setMissing(found.missing);
    setMode(s.mode);
    setPrompt(s.prompt);
    setChat(s.chat);
    setMessage(s.message);
    setSettings(s.settings);
    setFocused(null);
    clearSampleError();
  };

  const sampleNow = async () => {
    setFocused(null);
    const conversation = mode === 'chat' ? [...chat, { role: 'user' as const, content: message }] : null;
    await runSample(sampleRequest(settings, prompt, conversation));
    const result = useModels.getState().sample;
    if (conversation && result && !useModels.getState().sampleError) {
      setChat([...conversation, { role: 'assistant', content: replyText(result.tokens) }]);
      setMessage('');
    }
  };

  return (
    <div className="playground" data-testid="playground">
      <h2>Playground</h2>
      <ModeAndBeside mode={mode} onMode={setMode} usable={usable} />
      <PlaygroundLibrary
        settings={presetOf(settings)}
        onSettings={(p) => update(presetOf(p))}
        prompt={{ mode, prompt, system: chat[0]?.content ?? '', message }}
        onPrompt={(p) => {
          setMode(p.mode);
          setPrompt(p.prompt);
          setChat([{ role: 'system', content: p.system }]);
          setMessage(p.message);
        }}
      />
      <PlaygroundSessions
        current={
          selected ? { model: selected, beside: beside?.path ?? null, mode, prompt, chat, message, settings } : null
        }
        nameOf={nameOf}
        onOpen={openSession}
      />
      {missing.length > 0 && (
        <FieldError
          message={`Not listed now, so not opened: ${missing.join(', ')} (add its folder on this page).`}
          onDismiss={() => setMissing([])}
          testId="session-missing"
        />
      )}
      {mode === 'completion' ? (
        <PromptInput
          prompt={prompt}
          onPrompt={(p) => {
            setPrompt(p);
            touch('prompt');
          }}
          invalid={invalid('prompt')}
        />
      ) : (
        <ChatView chat={chat} message={message} onMessage={setMessage} onClear={() => setChat(chat.slice(0, 1))} />
      )}
      <div className="toolbar playground-options">
        <SamplingInputs settings={settings} update={update} invalid={invalid} />
        <SampleButtons canSample={mode !== 'chat' || !!message.trim()} onSample={() => void sampleNow()} />
      </div>
      <SampleOutput nameOf={nameOf} focused={focused} onFocus={setFocused} />
    </div>
  );
}

/** The settings a library preset holds (in the order a saved preset lists them). */
function presetOf(s: Omit<SamplingPreset, 'name'>): Omit<SamplingPreset, 'name'> {
  return { temperature: s.temperature, topP: s.topP, topK: s.topK, maxTokens: s.maxTokens, stop: s.stop };
}

/** A chat reply: the sampled text without its end-of-turn token. */
function replyText(tokens: readonly { text: string }[]): string {
  return tokens
    .map((t) => t.text)
    .join('')
    .replace(IM_END, '')
    .trim();
}

/** Completion or chat, and the model (if any) that samples the same request beside the selected one. */
function ModeAndBeside({ mode, onMode, usable }: { mode: Mode; onMode(m: Mode): void; usable: ModelSummary[] }) {
  const { beside, setBeside, sampling } = useModels();
  return (
    <div className="toolbar">
      <span className="mode-radios" role="radiogroup" aria-label="mode">
        {(['completion', 'chat'] as const).map((m) => (
          <label key={m}>
            <input type="radio" name="mode" checked={mode === m} onChange={() => onMode(m)} /> {m}
          </label>
        ))}
      </span>
      <label title="a second model samples the same prompt at the same time, side by side">
        beside{' '}
        <select
          className="beside-model"
          value={beside?.path ?? ''}
          onChange={(e) => setBeside(e.target.value || null)}
          disabled={sampling}
          aria-label="model beside"
          data-testid="beside-model"
        >
          <option value="">none (one model)</option>
          {usable.map((c) => (
            <option key={c.path} value={c.path} title={c.path}>
              {labelOf(c)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** Sample (while nothing is sampling) and Stop (while something is). */
function SampleButtons({ canSample, onSample }: { canSample: boolean; onSample(): void }) {
  const { sampling, stopping, stopSample } = useModels();
  return (
    <>
      <button disabled={sampling || !canSample} onClick={onSample}>
        {sampling ? 'Sampling…' : 'Sample'}
      </button>
      {sampling && (
        <button
          type="button"
          className="danger"
          onClick={() => void stopSample()}
          disabled={stopping}
          data-testid="stop-sample"
        >
          {stopping ? 'Stopping…' : 'Stop'}
        </button>
      )}
    </>
  );
}

/**
 * What the sampling gave: two columns when a model samples beside, else the tokens streaming in, the error,
 * or the finished sample (clicking a token focuses it).
 */
function SampleOutput({
  nameOf,
  focused,
  onFocus,
}: {
  nameOf(path: string): string;
  focused: number | null;
  onFocus(i: number): void;
}) {
  const { sample, sampling, sampleError, selectedTokens, toggleToken, clearSampleError, streamed, sampleId } =
    useModels();
  const { selected, beside } = useModels();
  if (beside)
    return (
      <SideBySide
        lanes={[
          {
            path: selected ?? '',
            label: nameOf(selected ?? ''),
            streamed,
            streaming: sampleId !== null,
            sample,
            error: sampleError,
          },
          {
            path: beside.path,
            label: nameOf(beside.path),
            streamed: beside.streamed,
            streaming: beside.sampleId !== null,
            sample: beside.sample,
            error: beside.error,
          },
        ]}
      />
    );
  return (
    <>
      {sampling && (
        <>
          <div className="muted" data-testid="stream-meta">{`${streamed.length} tokens so far…`}</div>
          <SampledTokens tokens={streamed} selected={[]} onToggle={() => {}} streaming />
        </>
      )}
      {sampleError && <FieldError message={sampleError.message} onDismiss={clearSampleError} testId="sample-error" />}
      {sample && !sampling && (
        <SampleResult
          sample={sample}
          selected={selectedTokens}
          focused={focused}
          onToggle={(i, extend) => {
            toggleToken(i, extend);
            onFocus(i);
          }}
        />
      )}
    </>
  );
}

/** The raw text a completion continues. */
function PromptInput({
  prompt,
  onPrompt,
  invalid,
}: {
  prompt: string;
  onPrompt(p: string): void;
  invalid: string | undefined;
}) {
  return (
    <textarea
      value={prompt}
      onChange={(e) => onPrompt(e.target.value)}
      rows={4}
      aria-label="prompt"
      className={invalid}
    />
  );
}

/** The conversation so far, the next message, and a way to start over (the system turn stays). */
function ChatView({
  chat,
  message,
  onMessage,
  onClear,
}: {
  chat: ChatTurn[];
  message: string;
  onMessage(m: string): void;
  onClear(): void;
}) {
  return (
    <div className="chat" data-testid="chat">
      {chat.map((t, i) => (
        <div key={i} className={`chat-turn chat-${t.role}`}>
          <span className="chat-role">{t.role}</span>
          <span className="chat-content">{t.content}</span>
        </div>
      ))}
      <textarea
        value={message}
        onChange={(e) => onMessage(e.target.value)}
        rows={2}
        aria-label="message"
        placeholder="your message"
      />
      <button type="button" className="secondary" onClick={onClear} disabled={chat.length <= 1}>
        Clear conversation
      </button>
    </div>
  );
}

type Sample = NonNullable<ReturnType<typeof useModels.getState>['sample']>;

/** A finished sample: its figures, the tokens (click for alternatives and routing), the legend, and the expert heatmap. */
function SampleResult({
  sample,
  selected,
  focused,
  onToggle,
}: {
  sample: Sample;
  selected: number[];
  focused: number | null;
  onToggle(i: number, extend: boolean): void;
}) {
  const chosen = selected.length ? selected : sample.tokens.map((_, i) => i);
  return (
    <>
      <div className="muted" data-testid="sample-meta">
        {sample.tokens.length} tokens, {sample.stopReason}, seed {sample.seed}, on {sample.provider}
        {sample.providerFallbackReason ? ` (${sample.providerFallbackReason})` : ''} · prefill {sample.promptTokens}{' '}
        tokens in {sample.timing.prefillMs.toFixed(0)} ms ({rate(sample.promptTokens, sample.timing.prefillMs)}) ·
        decode <span data-testid="tokens-per-second">{rate(sample.tokens.length, sample.timing.decodeMs)}</span>. Click
        a token for the most likely tokens at its position and to pick which routing the heatmap shows (shift for a
        range).
      </div>
      <SampledTokens tokens={sample.tokens} selected={selected} onToggle={onToggle} streaming={false} />
      <LogprobLegend />
      {focused !== null && sample.tokens[focused] && (
        <TokenAlternatives token={sample.tokens[focused]!} index={focused} />
      )}
      {sample.numExperts !== null && sample.tokens[0]?.experts ? (
        <ExpertHeatmap tokens={chosen.map((i) => sample.tokens[i]!)} numExperts={sample.numExperts} />
      ) : (
        <div className="muted">No routing: an external checkpoint.</div>
      )}
    </>
  );
}
