/** A read-only terminal following one running episode: its recent bytes first, then every new chunk. */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { onTerminal } from '../../stores/runs';
import { TERMINAL_STYLE } from '../common/terminal-style';

export function LiveTerminal({
  runId,
  episodeKey,
  initial,
  cols = 160,
  rows = 40,
}: {
  runId: string;
  episodeKey: string;
  initial: string;
  cols?: number;
  rows?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const term = new Terminal({
      ...TERMINAL_STYLE,
      cols,
      rows,
      disableStdin: true,
      cursorBlink: false,
      scrollback: 500,
      convertEol: false,
    });
    term.open(host.current as HTMLDivElement);
    term.write(initial);
    const off = onTerminal(runId, episodeKey, (data) => term.write(data));
    return () => {
      off();
      term.dispose();
    };
    // `initial` is only the starting point (later bytes arrive through onTerminal): not a dependency.
  }, [runId, episodeKey]);
  return <div className="live-terminal" ref={host} data-testid="live-terminal" data-episode={episodeKey} />;
}
