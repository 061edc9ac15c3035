import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import type { FeedSource } from "./feed-source";
import { SimulatedSource } from "./simulated/simulated-source";

/** The committed defaults (services/ingest/sources.yaml), found from src/ and dist/ alike. */
export const DEFAULT_SOURCES_FILE = join(__dirname, "..", "..", "sources.yaml");

const sourcesFileSchema = z.object({
  sources: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9_-]+$/, "lower-case id"),
        kind: z.literal("simulated"),
        rank: z.number().int(),
        lagSeconds: z.number().int().min(0).default(0),
        bookmakers: z.array(z.string().min(1)).min(1),
      }),
    )
    .min(1)
    .refine((list) => new Set(list.map((s) => s.id)).size === list.length, "source ids must be unique"),
});

export interface SimulationSettings {
  seed: string;
  quietLeagues: string[];
  quietSince?: Date;
}

/** Reads the sources file and builds one adapter per entry. Fails naming the file and the problem. */
export function loadSources(path: string, simulation: SimulationSettings): FeedSource[] {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read sources file ${path}: ${(err as Error).message}`);
  }
  const parsed = sourcesFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid sources file ${path}: ${problems}`);
  }
  return parsed.data.sources.map(
    (source) =>
      new SimulatedSource({
        id: source.id,
        rank: source.rank,
        seed: simulation.seed,
        bookmakers: source.bookmakers,
        lagSeconds: source.lagSeconds,
        quietLeagues: simulation.quietLeagues,
        quietSince: simulation.quietSince,
      }),
  );
}
