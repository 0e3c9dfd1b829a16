/**
 * The connection to the lab host, in one place: a banner while it is lost (pages would otherwise show
 * stale state as if live), and the flag that disables every input of the page meanwhile.
 */
import { useEffect, useState } from 'react';
import { getLabApi, onConnectionState, type ConnectionState } from '../../lab/api';

export function useConnection(): { state: ConnectionState; reason?: string } {
  const [state, setState] = useState<{ state: ConnectionState; reason?: string }>({ state: 'connecting' });
  useEffect(() => {
    getLabApi(); // connect now, so the badge tells the truth before any page asks for data
    return onConnectionState((s, reason) => setState({ state: s, reason }));
  }, []);
  return state;
}

export function ConnectionBanner({ state, reason }: { state: ConnectionState; reason?: string }) {
  if (state === 'open') return null;
  const lost = state === 'closed' || reason !== undefined;
  if (!lost) return null;
  return (
    <div className="connection-banner" role="alert" data-testid="connection-banner">
      <strong>Disconnected from the lab host.</strong> {reason ? `${reason}. ` : ''}Reconnecting… What this page shows
      may be out of date and its controls are disabled until the host answers again. If the host was restarted with a
      new token, open the URL it printed.
    </div>
  );
}
