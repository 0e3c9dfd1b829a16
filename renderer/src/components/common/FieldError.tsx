/** An error shown beside the field it concerns; it stays until the field changes or the user dismisses it. */
export function FieldError({
  message,
  onDismiss,
  testId,
}: {
  message: string;
  onDismiss: () => void;
  testId?: string;
}) {
  return (
    <div className="field-error" role="alert" data-testid={testId}>
      <span>{message}</span>
      <button type="button" className="dismiss" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}
