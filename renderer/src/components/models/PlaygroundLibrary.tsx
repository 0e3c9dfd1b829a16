/**
 * The playground's presets and saved prompts: a preset sets temperature, top-p, top-k, max tokens and stop
 * sequences at once; **save preset** and **save prompt** keep the current ones under a name (browser storage).
 */
import { useState } from 'react';
import { BUILTIN_PRESETS, presetList, promptList, type SamplingPreset, type SavedPrompt } from './playground-library';

interface Props {
  settings: Omit<SamplingPreset, 'name'>;
  onSettings: (s: Omit<SamplingPreset, 'name'>) => void;
  prompt: Omit<SavedPrompt, 'name'>;
  onPrompt: (p: Omit<SavedPrompt, 'name'>) => void;
}

/** A name to save under: Enter saves. */
export function NameInput({
  testid,
  label,
  onName,
}: {
  testid: string;
  label: string;
  onName: (name: string) => void;
}) {
  const [name, setName] = useState('');
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) onName(name);
      }}
    >
      <input
        autoFocus
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder="name"
        aria-label={label}
        data-testid={testid}
      />
    </form>
  );
}

export function PlaygroundLibrary({ settings, onSettings, prompt, onPrompt }: Props) {
  const [presets, setPresets] = useState(presetList.load);
  const [prompts, setPrompts] = useState(promptList.load);
  const [naming, setNaming] = useState<'preset' | 'prompt' | null>(null);
  const allPresets = [...BUILTIN_PRESETS, ...presets];
  return (
    <div className="toolbar playground-library" data-testid="playground-library">
      <label>
        preset{' '}
        <select
          value=""
          onChange={(e) => {
            const p = allPresets.find((x) => x.name === e.target.value);
            if (p)
              onSettings({
                temperature: p.temperature,
                topP: p.topP,
                topK: p.topK,
                maxTokens: p.maxTokens,
                stop: p.stop,
              });
          }}
          data-testid="preset"
        >
          <option value="">choose…</option>
          {allPresets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="secondary"
        onClick={() => setNaming(naming === 'preset' ? null : 'preset')}
        data-testid="save-preset"
      >
        save preset
      </button>
      {naming === 'preset' && (
        <NameInput
          testid="preset-name"
          label="preset name"
          onName={(name) => {
            const next = presetList.with(presets, { name, ...settings });
            setPresets(next);
            presetList.store(next);
            setNaming(null);
          }}
        />
      )}
      <label>
        saved{' '}
        <select
          // Its accessible name leaves out "prompt": the prompt box is the one field called that.
          aria-label="saved inputs to open"
          value=""
          onChange={(e) => {
            const p = prompts.find((x) => x.name === e.target.value);
            if (p) onPrompt({ mode: p.mode, prompt: p.prompt, system: p.system, message: p.message });
          }}
          data-testid="saved-prompt"
          disabled={!prompts.length}
        >
          <option value="">{prompts.length ? 'open…' : 'none saved'}</option>
          {prompts.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="secondary"
        onClick={() => setNaming(naming === 'prompt' ? null : 'prompt')}
        data-testid="save-prompt"
      >
        save prompt
      </button>
      {naming === 'prompt' && (
        <NameInput
          testid="prompt-name"
          label="name to save the input under"
          onName={(name) => {
            const next = promptList.with(prompts, { name, ...prompt });
            setPrompts(next);
            promptList.store(next);
            setNaming(null);
          }}
        />
      )}
    </div>
  );
}
