import { z } from "zod";
import { KEYED_STATUSES } from "../http/errors";

/** What the OpenAPI document needs of a route; RouteDefinition satisfies it (keyed, list data). */
export interface DocumentedRoute {
  path: string;
  summary: string;
  description?: string;
  tag: string;
  query: z.ZodType;
  /** Contract item shape; absent for routes that never answer 200. */
  item?: z.ZodType;
  errors: number[];
  keyed?: boolean;
  /** list (default): data is an array of items; object: data is one item; none: no success body. */
  data?: "list" | "object" | "none";
}

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid params",
  401: "Invalid API key",
  403: "Inactive API key",
  404: "Not found",
  410: "Gone",
  429: "Rate limit exceeded",
  431: "Request too large: request line and headers above 16 KiB",
  500: "Query failed",
  501: "Not Implemented",
  503: "Service unavailable",
};

/** "/odds/history/" → "OddsHistory". */
function schemaNameOf(path: string): string {
  return path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

type JsonSchema = Record<string, unknown>;

const COMPONENTS = "#/components/schemas/";

/**
 * zod emits sub-schemas shared between items under "__shared" and local ones under "$defs";
 * OpenAPI wants every named schema in components, so both are hoisted there and refs rewritten.
 */
function componentSchemas(generated: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const hoisted: Record<string, JsonSchema> = {};
  const hoist = (id: string, schema: JsonSchema) => {
    // $schema and $id are JSON Schema document keywords; inside components they are invalid
    // (the docs renderer reports "$id": "#/components/..." as a document validation error).
    const { $schema: _dialect, $id: _id, $defs, ...rest } = schema;
    void _dialect;
    void _id;
    if (id !== "__shared") hoisted[id] = rest;
    for (const [defId, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) hoist(defId, def);
  };
  for (const [id, schema] of Object.entries(generated)) hoist(id, schema);
  const text = JSON.stringify(hoisted)
    .replaceAll(`"${COMPONENTS}__shared#/$defs/`, `"${COMPONENTS}`)
    .replaceAll('"#/$defs/', `"${COMPONENTS}`);
  return JSON.parse(text) as Record<string, JsonSchema>;
}

/**
 * zod writes a nullable constrained value as `anyOf: [X, {type: "null"}]`, a schema without a
 * `type`, which renderers that expect one per schema (Scalar) report as invalid; `X` with
 * `type: [X.type, "null"]` says the same and carries a type.
 */
function collapseNullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(collapseNullable);
  if (schema === null || typeof schema !== "object") return schema;
  const { anyOf, ...rest } = schema as JsonSchema;
  const variants = Array.isArray(anyOf) ? (anyOf as JsonSchema[]) : undefined;
  const nonNull = variants?.filter((variant) => variant.type !== "null");
  const single = nonNull?.length === 1 && variants?.length === 2 ? nonNull[0] : undefined;
  if (single && typeof single.type === "string") {
    return collapseNullable({ ...single, ...rest, type: [single.type, "null"] });
  }
  const collapsed: JsonSchema = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, collapseNullable(value)]),
  );
  if (variants) collapsed.anyOf = collapseNullable(variants);
  return collapsed;
}

/**
 * A query parameter arrives as a string and is coerced by its schema; its documented type is
 * the one its `.meta()` declares (boolean, integer, default), without the string-only keywords.
 */
function parameterSchema(generated: JsonSchema, declared: JsonSchema | undefined): JsonSchema {
  const { description: _description, id: _id, ...documented } = declared ?? {};
  void _description;
  void _id;
  const merged: JsonSchema = { ...generated, ...documented };
  if (merged.type === "boolean" || merged.type === "integer" || merged.type === "number") {
    delete merged.pattern;
    delete merged.enum;
  }
  return merged;
}

/** The `.meta()` of a parameter schema, looking through optional/default wrappers. */
function declaredMeta(schema: z.ZodType | undefined): JsonSchema | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const meta = current.meta() as JsonSchema | undefined;
    if (meta) return meta;
    current = (current._zod.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

function queryParameters(query: z.ZodType): JsonSchema[] {
  const schema = z.toJSONSchema(query, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const shape = query instanceof z.ZodObject ? (query.shape as Record<string, z.ZodType>) : {};
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: parameterSchema(rest, declaredMeta(shape[name])),
    };
  });
}

/** How one public contract (v2, v1) frames its routes: envelope, failure body, security, statuses on every path. */
export interface ContractStyle {
  serverUrl: string;
  description: string;
  security: JsonSchema[];
  securitySchemes: JsonSchema;
  /** The 200 body around a route's data (a list of items or one item). */
  successBody(data: JsonSchema): JsonSchema;
  /** The failure body: its component name, media type, and schema (absent: one of `schemas` has the name). */
  failure: { name: string; schema?: JsonSchema; mediaType: string };
  /** Statuses every path may answer besides its own (410 on v2's retirement, 431 from the HTTP parser). */
  everyPath: number[];
  /** Further named schemas (the envelope's parts). */
  schemas?: Record<string, z.ZodType>;
}

const V2_STYLE: ContractStyle = {
  serverUrl: "/v2",
  description: "Read-only JSON API for sports events, multi-bookmaker odds, odds history and catalogue metadata.",
  security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
  securitySchemes: {
    apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
    apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey" },
  },
  successBody: (data) => ({
    type: "object",
    required: ["success", "data", "nextCursor"],
    properties: {
      success: { type: "boolean", const: true },
      data,
      nextCursor: { type: ["string", "null"], description: "pass as `cursor` for the next page" },
      notice: { type: "string" },
    },
  }),
  failure: {
    name: "ErrorEnvelope",
    mediaType: "application/json",
    schema: {
      type: "object",
      required: ["success", "error"],
      properties: {
        success: { type: "boolean", const: false },
        error: { type: "string" },
        message: { type: "string" },
      },
    },
  },
  everyPath: [410, 431],
};

/**
 * The OpenAPI 3.1 document of the v2 contract, generated from the same zod schemas the edge
 * validates requests with, so the document cannot drift from the behaviour.
 */
export function buildOpenApiDocument(routes: DocumentedRoute[], version: string): JsonSchema {
  return buildContractDocument(routes, version, V2_STYLE);
}

/** Path parameters are written {name} in the document and :name in the router. */
function documentedPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, "{$1}");
}

/** A contract's OpenAPI 3.1 document from its routes' schemas, framed by its style. */
export function buildContractDocument(routes: DocumentedRoute[], version: string, style: ContractStyle): JsonSchema {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(style.schemas ?? {})) registry.add(schema, { id });
  const itemNames = new Map<DocumentedRoute, string>();
  for (const route of routes) {
    if (!route.item) continue;
    const id = (route.item.meta()?.id as string | undefined) ?? schemaNameOf(route.path);
    if (!registry.has(route.item)) registry.add(route.item, { id });
    itemNames.set(route, (registry.get(route.item) as { id: string }).id);
  }
  const generated = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
  }) as { schemas: Record<string, JsonSchema> };
  const schemas = collapseNullable(componentSchemas(generated.schemas)) as Record<string, JsonSchema>;
  if (style.failure.schema) schemas[style.failure.name] = style.failure.schema;

  const paths: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const keyed = route.keyed ?? true;
    const dataShape = route.data ?? "list";
    const itemName = itemNames.get(route);
    const itemRef = itemName ? { $ref: `#/components/schemas/${itemName}` } : {};
    const responses: Record<string, JsonSchema> = {};
    if (dataShape !== "none") {
      responses["200"] = {
        description: "Success envelope",
        content: {
          "application/json": {
            schema: style.successBody(dataShape === "list" ? { type: "array", items: itemRef } : itemRef),
          },
        },
      };
    }
    const statuses = new Set([...(keyed ? KEYED_STATUSES : []), ...route.errors, ...style.everyPath]);
    for (const status of [...statuses].sort()) {
      responses[String(status)] = {
        description: ERROR_TEXT[status] ?? "Error",
        ...(status === 429
          ? {
              headers: {
                "Retry-After": { description: "whole seconds until the window resets", schema: { type: "integer" } },
              },
            }
          : {}),
        content: { [style.failure.mediaType]: { schema: { $ref: `#/components/schemas/${style.failure.name}` } } },
      };
    }
    const path = documentedPath(route.path);
    const operationId = `get${schemaNameOf(route.path)}`;
    paths[path] = {
      get: {
        operationId,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        parameters: queryParameters(route.query).map((parameter) =>
          path.includes(`{${parameter.name as string}}`) ? { ...parameter, in: "path", required: true } : parameter,
        ),
        ...(keyed ? {} : { security: [] }),
        responses,
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: { title: "Sports Odds Read API", version, description: style.description },
    servers: [{ url: style.serverUrl }],
    security: style.security,
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes: style.securitySchemes },
  };
}
