import type { ManagedProcess } from "./processes";

export interface SupervisedProcess extends ManagedProcess {
  /** How many times the process was started again after it died. */
  readonly restarts: number;
}

export interface RestartPolicy {
  /** Told of every crash and restart (the launcher prints it on stdout). */
  notify(message: string): void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A process that ran this long before dying starts again from the initial backoff. */
  resetAfterMs?: number;
}

/**
 * Keeps a service running as Kubernetes would: when it dies without being asked to stop, it is
 * started again after an exponential backoff, and each crash and restart is reported.
 * `child` is always the current process.
 */
export function superviseRestarts(name: string, spawn: () => ManagedProcess, policy: RestartPolicy): SupervisedProcess {
  const initial = policy.initialBackoffMs ?? 500;
  const max = policy.maxBackoffMs ?? 30_000;
  const resetAfter = policy.resetAfterMs ?? 60_000;
  let current = spawn();
  let startedAtMs = Date.now();
  let stopping = false;
  let restarts = 0;
  let failuresInARow = 0;
  let timer: NodeJS.Timeout | undefined;

  const watch = (proc: ManagedProcess) => {
    proc.child.once("exit", (code, signal) => {
      if (stopping || proc !== current) return;
      failuresInARow = Date.now() - startedAtMs >= resetAfter ? 1 : failuresInARow + 1;
      const delay = Math.min(max, initial * 2 ** (failuresInARow - 1));
      policy.notify(`${name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
      timer = setTimeout(() => {
        if (stopping) return;
        current = spawn();
        startedAtMs = Date.now();
        restarts += 1;
        watch(current);
        policy.notify(`${name} restarted (restart ${restarts})`);
      }, delay);
    });
  };
  watch(current);

  return {
    name,
    get child() {
      return current.child;
    },
    get restarts() {
      return restarts;
    },
    async stop(graceMs?: number) {
      stopping = true;
      if (timer) clearTimeout(timer);
      return current.stop(graceMs);
    },
  };
}
