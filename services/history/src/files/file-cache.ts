import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { asBuffer } from "@odds/platform";
import { GridFSBucket, type Db } from "mongodb";

/** A written file: how to stream it, and what the edge puts in ETag and Content-Length. */
export interface CachedFile {
  size: number;
  etag: string;
  open(): Readable;
}

/**
 * History files, written once and kept in the live store's GridFS bucket (shared by every history
 * replica). A league-day is only produced once complete, so a cached file never goes stale.
 */
export class FileCache {
  private readonly bucket: GridFSBucket;

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: "historyFiles" });
  }

  async find(name: string): Promise<CachedFile | undefined> {
    const [file] = await this.bucket.find({ filename: name }).sort({ uploadDate: 1 }).limit(1).toArray();
    if (!file) return undefined;
    const etag = String((file.metadata as { etag?: string } | undefined)?.etag ?? "");
    return { size: file.length, etag, open: () => this.bucket.openDownloadStream(file._id) };
  }

  /** Stores the file; two replicas writing the same name at once store the same bytes, the first is served. */
  async save(name: string, bytes: Uint8Array): Promise<CachedFile> {
    const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 32)}"`;
    await new Promise<void>((resolve, reject) => {
      const upload = this.bucket.openUploadStream(name, { metadata: { etag } });
      upload.once("error", reject);
      upload.once("finish", () => resolve());
      upload.end(asBuffer(bytes));
    });
    return (await this.find(name))!;
  }
}
