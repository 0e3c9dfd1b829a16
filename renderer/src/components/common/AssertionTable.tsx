/**
 * The verifier's verdict per assertion: its name, its status, and for one that did not pass the key lines of
 * what failed (the whole message a click away). Episodes of evaluation runs and of PPO rollouts show the same table.
 */
import { FailureMessage } from './FailureMessage';

export interface AssertionRow {
  name: string;
  status: string;
  message: string;
}

export function AssertionTable({ assertions, testId }: { assertions: readonly AssertionRow[]; testId: string }) {
  return (
    <table className="grid" data-testid={testId}>
      <thead>
        <tr>
          <th>assertion</th>
          <th>status</th>
          <th>what failed</th>
        </tr>
      </thead>
      <tbody>
        {assertions.map((a) => (
          <tr key={a.name}>
            <td>{a.name}</td>
            <td className={a.status === 'passed' ? 'ok' : 'warn'}>{a.status}</td>
            <td className="message">{a.status === 'passed' ? null : <FailureMessage message={a.message} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
