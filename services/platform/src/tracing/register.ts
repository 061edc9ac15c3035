// Preloaded with `node --require @odds/platform/tracing/register` so instrumentation
// patches http, koa, grpc-js, mongodb and redis before any service code loads them.
import { startTracing } from "./sdk";

startTracing();
