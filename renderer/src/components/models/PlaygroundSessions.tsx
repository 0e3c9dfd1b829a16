/**
 * The playground's saved sessions: **save session** keeps the whole session under a name (the model and
 * the one beside it, the mode, the prompt or the chat with its messages, the next message, the sampling
 * settings) in the browser's storage; each saved one is listed with what it holds, opens again with a click
 * and can be deleted.
 */
import { useState } from 'react';
import { NameInput } from './PlaygroundLibrary';
import { sessionList, sessionSummary, type PlaygroundSession } from './playground-sessions';

interface Props {
  /** The session as it stands (null with no model to sample). */
  current: Omit<PlaygroundSession, 'name' | 'savedAt'> | null;
  nameOf(path: string): string;
  onOpen(session: PlaygroundSession): void;
}

export function PlaygroundSessions({ current, nameOf, onOpen }: Props) {
  const [sessions, setSessions] = useState(sessionList.load);
  const [naming, setNaming] = useState(false);
  const update = (next: PlaygroundSession[]) => {
    setSessions(next);
    sessionList.store(next);
  };
  return (
    <div className="playground-sessions" data-testid="playground-sessions">
      <div className="toolbar">
        <span className="muted small">sessions</span>
        <button
          type="button"
          className="secondary"
          onClick={() => setNaming(!naming)}
          disabled={!current}
          data-testid="save-session"
        >
          save session
        </button>
        {naming && current && (
          <NameInput
            testid="session-name"
            label="session name"
            onName={(name) => {
              update(sessionList.with(sessions, { name, ...current, savedAt: new Date().toISOString() }));
              setNaming(false);
            }}
          />
        )}
        {!sessions.length && <span className="muted small">none saved</span>}
      </div>
      {sessions.length > 0 && (
        <ul className="session-list">
          {sessions.map((s) => (
            <li key={s.name} data-testid="saved-session" data-name={s.name}>
              <button
                type="button"
                className="link"
                onClick={() => onOpen(s)}
                title={`open session ${s.name}`}
                data-testid="open-session"
              >
                {s.name}
              </button>{' '}
              <span className="muted small cut">{sessionSummary(s, nameOf)}</span>{' '}
              <button
                type="button"
                className="link small"
                onClick={() => update(sessionList.without(sessions, s.name))}
                aria-label={`delete session ${s.name}`}
                data-testid="delete-session"
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
