/**
 * Starts something (a store subscription, a timer) once `ready` resolves, and returns the one way to stop
 * it, which holds whether it comes before or after that. An effect that waits for something async first
 * must not hand React a stop function captured before the start: React StrictMode mounts, cleans up and
 * mounts again at once, so a cleanup that runs while `ready` is pending would stop nothing and what the
 * first mount then started would never stop.
 */
export function startWhenReady(ready: Promise<unknown>, start: () => () => void): () => void {
  let stopped = false;
  let stop = () => {};
  void ready.then(
    () => {
      if (!stopped) stop = start();
    },
    // Nothing starts when `ready` fails: what it was to prepare is not there. Its owner reports the failure.
    () => {},
  );
  return () => {
    stopped = true;
    stop();
  };
}
