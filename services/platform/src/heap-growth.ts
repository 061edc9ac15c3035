import { setFlagsFromString } from "node:v8";

/**
 * Sets V8's heap growing factor for this process, as `--heap-growing-percent` would (0 leaves V8's own): after each
 * full collection the heap limit is what survived plus this percentage of it. Call it before the service allocates
 * its data, so every limit after that is set this way. A setting of the service rather than a command-line flag, so
 * the local launcher, the image and the chart all get it (Node 20's V8 leaves its flags writable after start).
 */
export function setHeapGrowingPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
