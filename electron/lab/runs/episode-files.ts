/** What an episode folder holds (relative to it). */
export const EPISODE_FILES = {
  /** Our trajectory (schema t1lab.trajectory/1). */
  trajectory: 'trajectory.json',
  /** The same episode in Harbor's ATIF. */
  atif: 'trajectory.atif.json',
  /** The agent's terminal, asciicast v2. */
  recording: 'recording.cast',
  /** Every verifier step's command line, stdout and stderr. */
  verifierOutput: 'verifier/steps.log',
  /** The verifier's own reports (reward.json, ctrf.json, junit.xml) as it wrote them. */
  verifierDir: 'verifier',
} as const;
