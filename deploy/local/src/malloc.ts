import type { ServiceName } from "./stack";

/**
 * glibc malloc's settings every service process runs with, here and in the image
 * (deploy/docker/Dockerfile sets the same; test/deploy/build.test.ts holds them equal). Set in the
 * environment, an operator's own value wins.
 *
 * Node allocates a Buffer's memory with malloc. glibc maps a block of at least its mmap threshold
 * on its own and unmaps it when freed, but by default it raises that threshold to the size of
 * each mapped block freed (up to 32 MB), so after the first multi-megabyte answer every Buffer
 * below that size comes from the heap's arenas. Freed, those stay resident: the arena is only
 * trimmed at its top, and the answers, gRPC messages and packed renderings the services make and
 * drop by the hundred leave it in holes. A fixed threshold (setting it turns the adjustment off)
 * keeps every Buffer of 128 KiB or more in its own mapping, returned to the system when freed.
 */
export const SERVICE_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(128 * 1024),
};

/**
 * Where a service departs from SERVICE_MALLOC_ENV (the chart sets the same in its container:
 * test/deploy/chart.test.ts holds them equal).
 *
 * The events service answers pages of 128 KiB to 1 MiB (ten events of a league, a page of 100), and
 * each answer was two fresh Buffers of its size: the page, then grpc-js's framed copy of it (the
 * page is serialised into one kept Buffer since: `serializeJsonPage`). Each its own mapping, every
 * 4 KiB page of both was faulted in and unmapped again: 65-72 faults an answer of 133 KB, about 450
 * of 906 KB, 0.3-1.7 ms of the service's system time. Under a 1 MiB threshold they come from the
 * arena's pages, already resident, and a trim threshold twice that (glibc's own ratio when it
 * adjusts them) keeps the arena's top from being handed back and faulted in again for each page.
 * Cold events by league cost the events service 0.38-0.45 ms of CPU a page instead of 0.70-0.84, a
 * cold page of 100 events 1.5-2.3 ms instead of 2.5-3.0, for a peak 10-15 MB higher in the
 * benchmark (docs/performance.md "The events service's pages in the arena"). The edge gained
 * nothing from the same (its Buffers of that size are few) and held 70 MB more; history gained
 * nothing measurable (its pages' time is in parsing and the collector).
 */
export const SERVICE_MALLOC_OVERRIDES: Readonly<Partial<Record<ServiceName, Readonly<Record<string, string>>>>> = {
  events: { MALLOC_MMAP_THRESHOLD_: String(1024 * 1024), MALLOC_TRIM_THRESHOLD_: String(2 * 1024 * 1024) },
};

/** The malloc environment a service's process starts with: SERVICE_MALLOC_ENV and its own overrides. */
export function serviceMallocEnv(service: ServiceName): Readonly<Record<string, string>> {
  return { ...SERVICE_MALLOC_ENV, ...SERVICE_MALLOC_OVERRIDES[service] };
}
