// The one entry point to the generated contracts; generated files live in gen/ (built, not committed).
export * as common from "./gen/odds/common/v1/caller";
export * as events from "./gen/odds/events/v1/events";
export * as history from "./gen/odds/history/v1/history";
export * as catalogue from "./gen/odds/catalogue/v1/catalogue";
export * as usage from "./gen/odds/usage/v1/usage";
export * as oddId from "./contract/odd-id";
export * as filters from "./contract/filters";
export * as planScope from "./contract/plan-scope";
export * as pageLimits from "./contract/page-limits";
export * as staleness from "./contract/staleness";
export * as objects from "./contract/objects";
export * as oddsFormat from "./contract/odds-format";
export * as pricing from "./contract/pricing";
export * as v1 from "./contract/v1";
