/**
 * Commits in progress, by the image tag they will write: a phase that starts from a tag waits until no
 * commit to it is running (the state a shell or a run left is saved before anyone reads it). Both container
 * backends (engine CLI and engine API) keep one.
 */
export class PendingCommits {
  private readonly byTag = new Map<string, Promise<unknown>>();

  /** Track `work` as the commit to `tag` (when there is one) until it settles; returns `work`. */
  track<T>(tag: string | undefined, work: Promise<T>): Promise<T> {
    if (tag) {
      this.byTag.set(tag, work);
      void work
        .finally(() => {
          if (this.byTag.get(tag) === work) this.byTag.delete(tag);
        })
        .catch(() => {});
    }
    return work;
  }

  /** Wait until no commit to `tag` is in progress (a failed commit counts as settled). */
  async settled(tag: string): Promise<void> {
    for (let p = this.byTag.get(tag); p; p = this.byTag.get(tag)) await p.catch(() => {});
  }
}
