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
