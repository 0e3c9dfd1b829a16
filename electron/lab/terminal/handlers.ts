/** The `terminal.*` methods of the contract. */
import type { Handlers } from '../../ipc/common/router';
import type { terminalContract } from '../../ipc/common/contracts/terminal';
import type { HostContext } from '../host-context';
import { TerminalService } from './terminals';

export function terminalHandlers(ctx: HostContext): Handlers<typeof terminalContract> {
  const terminals = new TerminalService(ctx);
  return {
    'terminal.defaults': () => terminals.defaults(),
    'terminal.open': (input, call) => terminals.open(input, call.connectionId),
    'terminal.input': ({ id, data }, call) => terminals.input(id, data, call.connectionId),
    'terminal.resize': ({ id, cols, rows }, call) => terminals.resize(id, cols, rows, call.connectionId),
    'terminal.ack': ({ id, chars }, call) => terminals.ack(id, chars, call.connectionId),
    'terminal.close': ({ id }, call) => terminals.close(id, call.connectionId),
    'terminal.list': (_input, call) => terminals.list(call.connectionId),
  };
}
