/** The action protocols by name. */
import type { ProtocolName } from '../../domain/trajectory';
import { createHermesProtocol } from './hermes';
import { createNativeToolsProtocol } from './native-tools';
import { createTerminusProtocol } from './terminus';
import type { ActionProtocol } from './types';

export function createProtocol(name: ProtocolName): ActionProtocol {
  switch (name) {
    case 'hermes':
      return createHermesProtocol();
    case 'terminus':
      return createTerminusProtocol();
    case 'tools':
      return createNativeToolsProtocol();
  }
}

export type { ActionProtocol, ParsedTurn, AssistantTurn } from './types';
