/**
 * The report form's buttons: export, save (over the saved report it shows, or the draft under a new name) and
 * close.
 */
import { useState } from 'react';

export function ReportActions({
  isSaved,
  changed,
  onExport,
  onSave,
  onSaveAs,
  onClose,
}: {
  /** The form shows a saved report: Save writes over it. Else the draft is saved under a name. */
  isSaved: boolean;
  changed: boolean;
  onExport: () => void;
  onSave: () => Promise<void>;
  /** Resolves true when the report was saved under the name. */
  onSaveAs: (name: string) => Promise<boolean>;
  onClose: () => void;
}) {
  return (
    <div className="toolbar">
      <button type="button" onClick={onExport} data-testid="report-export">
        Export HTML
      </button>
      {isSaved ? (
        <button
          type="button"
          onClick={() => void onSave()}
          disabled={!changed}
          data-testid="report-save"
          title="write the changes over the saved report (its name and address stay)"
        >
          Save
        </button>
      ) : (
        <SaveAsForm onSaveAs={onSaveAs} />
      )}
      <CloseButton onClose={onClose} />
    </div>
  );
}

export function CloseButton({ onClose }: { onClose: () => void }) {
  return (
    <button type="button" className="secondary" onClick={onClose}>
      Close
    </button>
  );
}

/** The draft's name and its Save as button; the name is cleared once saved. */
function SaveAsForm({ onSaveAs }: { onSaveAs: (name: string) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const save = async () => {
    if (await onSaveAs(name)) setName('');
  };
  return (
    <form
      className="report-save-as"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <input
        value={name}
        maxLength={120}
        placeholder="name"
        onChange={(e) => setName(e.target.value)}
        data-testid="report-name"
        aria-label="report name"
      />{' '}
      <button
        type="submit"
        disabled={!name.trim()}
        data-testid="report-save"
        title="save this report under a name: it gets an address of its own, and `t1lab runs reports` lists it"
      >
        Save as
      </button>
    </form>
  );
}
