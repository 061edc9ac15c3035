// Normalising the sources' snapshots into the oddID grammar, by concern: quotes, source choice,
// participants, status, pricing, catalogue, and the cycle that ties them together.
export { collectCycle, mergeSources, normaliseCycle, normaliseEvent, streamOf } from "./cycle";
export type { CycleEvents, NormalisedEvent, RankedStream } from "./cycle";
export { CatalogueBuilder } from "./catalogue";
export type { NormaliseOptions } from "./event";
export { observeSnapshot } from "./observations";
export { contrastColor } from "./participants";
export { normaliseQuote } from "./quote";
export type { RankedSnapshot } from "./sources";
