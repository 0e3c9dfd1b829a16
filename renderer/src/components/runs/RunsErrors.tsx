/** What went wrong on the Runs page: the last action's error (dismissable), and a runs list that cannot be read. */
import { userError } from '../../lab/errors';

export function RunsErrors({
  error,
  listError,
  onDismiss,
}: {
  error: string | null;
  listError: string | null;
  onDismiss: () => void;
}) {
  return (
    <>
      {error && (
        <div className="error dismissable" role="alert" data-testid="runs-error">
          <span>{userError({ message: error }).message}</span>
          <button type="button" className="dismiss" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </div>
      )}
      {listError && (
        <div className="error" role="alert">
          Cannot list the runs: {listError}
        </div>
      )}
    </>
  );
}
