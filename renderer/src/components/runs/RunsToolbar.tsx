/** The Runs page's heading and its actions on the checked runs: compare them, or write a report of them. */
export function RunsToolbar({
  checked,
  onCompare,
  onToggleReport,
}: {
  checked: readonly string[];
  onCompare: () => void;
  onToggleReport: () => void;
}) {
  return (
    <div className="toolbar">
      <h2>Runs</h2>
      <button
        type="button"
        disabled={checked.length < 2}
        onClick={onCompare}
        data-testid="compare-runs"
        title="the first run checked is the baseline (A)"
      >
        {checked.length >= 2 ? `Compare the ${checked.length} checked runs` : 'Check two or more runs to compare them'}
      </button>
      <button
        type="button"
        className="secondary"
        onClick={onToggleReport}
        data-testid="report-open"
        title="a live report of the checked runs and chosen training runs, exported as one HTML file that opens offline"
      >
        Report…
      </button>
    </div>
  );
}
