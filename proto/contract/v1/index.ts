// The v1 contract (preview): identifiers and objects, beside v2's in ../objects.
export * from "./ids";
export * from "./objects";
export * from "./history-start";
export * from "./prices";
