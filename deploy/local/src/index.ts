export * from "./processes";
export * from "./stores";
export * from "./stack";
export * from "./malloc";
export * from "./node-flags";
export * from "./testing/stores";
export * from "./supervisor";
export * from "./interruption";
