/**
 * Table rows reachable by keyboard: Tab reaches a row, ↑/↓ (or k/j) move between rows, Enter or Space
 * opens the focused one. Rows carry tabIndex={0} and this handler.
 */
import type { KeyboardEvent } from 'react';

export function onRowKey(activate: () => void) {
  return (e: KeyboardEvent<HTMLElement>) => {
    const row = e.currentTarget;
    const move = (to: Element | null) => {
      if (to instanceof HTMLElement) {
        e.preventDefault();
        to.focus();
      }
    };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      activate();
    } else if (e.key === 'ArrowDown' || e.key === 'j') move(row.nextElementSibling);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(row.previousElementSibling);
  };
}
