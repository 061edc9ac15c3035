import { v1 } from "@odds/proto";
import { buildContractDocument, type ContractStyle } from "../openapi/document";
import { PROBLEM_MEDIA_TYPE } from "./problem";
import type { V1Route } from "./route";

const V1_STYLE: ContractStyle = {
  serverUrl: "/v1",
  description:
    "Preview of v1, the successor of v2: keys as Authorization: Bearer, v1 ids (ev_, pl_, mk_, oc_), " +
    "{data, meta, links} with cursor paging through links.next, decimal prices, usage counted in objects " +
    "(1 per record plus 1 per bookmaker price), failures as application/problem+json.",
  security: [{ bearer: [] }],
  securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "the API key" } },
  successBody: (data) => ({
    type: "object",
    required: ["data", "meta", "links"],
    properties: { data, meta: { $ref: "#/components/schemas/Meta" }, links: { $ref: "#/components/schemas/Links" } },
  }),
  failure: { name: "Problem", mediaType: PROBLEM_MEDIA_TYPE },
  everyPath: [431],
  schemas: { Meta: v1.v1Meta, Links: v1.v1Links, Problem: v1.v1Problem },
};

/** /v1/openapi.json, generated from the v1 routes' schemas (the same that validate and that services render). */
export function buildV1OpenApiDocument(routes: V1Route[], version: string): Record<string, unknown> {
  return buildContractDocument(routes, `${version}-v1-preview`, V1_STYLE);
}
