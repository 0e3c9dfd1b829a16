/**
 * The one terminal style of the app (Shell page, live run terminals, recording player). At 10 px with
 * xterm's default line height the DOM renderer clips the bottom pixel row of each cell, where underscores
 * are drawn (`write_text` read as `write text`); 13 px with a little extra line height keeps them.
 */
import type { ITerminalOptions } from '@xterm/xterm';

export const TERMINAL_FONT_FAMILY = 'ui-monospace, "DejaVu Sans Mono", monospace';
export const TERMINAL_FONT_SIZE = 13;
export const TERMINAL_LINE_HEIGHT = 1.15;

export const TERMINAL_STYLE: ITerminalOptions = {
  fontFamily: TERMINAL_FONT_FAMILY,
  fontSize: TERMINAL_FONT_SIZE,
  lineHeight: TERMINAL_LINE_HEIGHT,
};
