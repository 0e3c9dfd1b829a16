import type { ReactNode } from 'react';

/** A two-column table of labelled values; each value cell is addressable by `data-key` in tests. */
export function KeyValue({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <table className="kv">
      <tbody>
        {rows.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td data-key={key}>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
