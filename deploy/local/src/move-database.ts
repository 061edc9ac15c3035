import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { MongoClient, type Db } from "mongodb";

export interface MoveOutcome {
  /** `none`: nothing at the source; `both-hold-data`: the target already had data of its own, nothing moved. */
  outcome: "none" | "moved" | "both-hold-data";
  collections: number;
  documents: number;
}

const BATCH = 500;

async function collectionNames(db: Db): Promise<string[]> {
  return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
}

/**
 * Moves one database (every collection, its documents and secondary indexes) from one server to
 * another, then drops it at the source. The marker file says a move is under way: a move cut short
 * (a crash, Ctrl-C) leaves the source whole, and the next call starts the copy again from scratch;
 * the source is dropped only once every document is at the target. A target that already holds
 * data without the marker is never overwritten.
 */
export async function moveDatabase(
  fromUri: string,
  toUri: string,
  options: { markerFile: string; onProgress?: (message: string) => void },
): Promise<MoveOutcome> {
  const from = new MongoClient(fromUri, { serverSelectionTimeoutMS: 10_000 });
  const to = new MongoClient(toUri, { serverSelectionTimeoutMS: 10_000 });
  try {
    const [source, target] = [from.db(), to.db()];
    const names = await collectionNames(source);
    if (names.length === 0) {
      rmSync(options.markerFile, { force: true });
      return { outcome: "none", collections: 0, documents: 0 };
    }
    if (!existsSync(options.markerFile) && (await collectionNames(target)).length > 0) {
      return { outcome: "both-hold-data", collections: 0, documents: 0 };
    }
    mkdirSync(dirname(options.markerFile), { recursive: true });
    writeFileSync(options.markerFile, `moving ${source.databaseName} since ${new Date().toISOString()}\n`);
    await target.dropDatabase();
    let documents = 0;
    for (const name of names) {
      const indexes = (await source.collection(name).indexes()).filter((index) => index.name !== "_id_");
      await target.createCollection(name);
      for (const { key, v: _version, ns: _namespace, ...indexOptions } of indexes) {
        await target.collection(name).createIndex(key, indexOptions);
      }
      let batch: Record<string, unknown>[] = [];
      for await (const doc of source.collection(name).find({}, { batchSize: BATCH })) {
        batch.push(doc);
        if (batch.length < BATCH) continue;
        await target.collection(name).insertMany(batch, { ordered: false });
        documents += batch.length;
        batch = [];
      }
      if (batch.length > 0) await target.collection(name).insertMany(batch, { ordered: false });
      documents += batch.length;
      options.onProgress?.(`moved ${source.databaseName}.${name} (${documents} documents so far)`);
    }
    await source.dropDatabase();
    rmSync(options.markerFile, { force: true });
    return { outcome: "moved", collections: names.length, documents };
  } finally {
    await Promise.all([from.close(), to.close()]);
  }
}
