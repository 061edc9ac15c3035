import type { ServiceName } from "./stack";

/**
 * How far below the launcher's CPU priority a service process runs (its nice increment; none: the same).
 *
 * Ingest is the stack's batch work: a full-scale cycle is 34-41 s of its CPU every 2 minutes, and on one host it takes
 * that from the services answering reads. Below them it still gets every core the reads leave idle, so a cycle on a
 * quiet machine is as fast as before; beside reads the kernel runs the reads first. Hot narrow events pages at 16
 * connections beside cycles: p99 19 ms against 30 (median of 5 s windows), 2,726 answers a second against 1,813, and
 * p99 within 25 ms in 63 of 67 windows against 7 of 46; the cycles beside that load took 74-82 s against 59-67
 * (docs/performance.md "Ingest below the read path"). Freshness counts from the end of a cycle's writes, so it does
 * not move; a cycle's prices reach the stores that much later while reads keep the machine busy.
 *
 * A nice value, not `SCHED_IDLE`: that class gave reads beside a cycle a quarter more answers, but guarantees ingest no
 * share of a host the reads keep busy, and an unprivileged process cannot take it back (cycles 106-112 s against
 * 80-90 under the bench's heaviest load; docs/performance.md "Ingest below the read path").
 *
 * In Kubernetes each service has its own container, whose CPU requests share the node (a nice value weighs only
 * against the threads of its own container), so the chart sets none.
 */
export const SERVICE_NICENESS: Readonly<Partial<Record<ServiceName, number>>> = {
  ingest: 10,
};
