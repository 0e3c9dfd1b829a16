/** How the System page shows a size and a part's state. */
import type { ReactNode } from 'react';

export function bytes(n: number): string {
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}

/** A part's state, green when it works and amber when it does not. */
export function Status({ ok, children }: { ok: boolean; children: ReactNode }) {
  return <span className={ok ? 'ok' : 'warn'}>{children}</span>;
}
