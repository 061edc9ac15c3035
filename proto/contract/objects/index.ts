// Every contract object, defined once: renderers are typed by these, the edge's OpenAPI document is
// generated from them, and the end-to-end tests validate every route's served items against them.
export * from "./event";
export * from "./odds-history-tick";
export * from "./catalogue";
export * from "./account";
