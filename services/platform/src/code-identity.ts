import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * Names the code in `folders`: SHA-256 over every JavaScript file below them, each by its path within its folder
 * and its bytes, in one order (16 bytes of it, base64url). The same in every replica of one release, whatever
 * folder it was installed in; another after any change to that code.
 */
export function codeIdentity(folders: readonly string[]): string {
  const hash = createHash("sha256");
  for (const folder of folders) {
    hash.update(`folder\n`);
    for (const file of javaScriptFiles(folder)) {
      const bytes = readFileSync(file);
      hash.update(`${relative(folder, file).split(sep).join("/")}\n${bytes.length}\n`).update(bytes);
    }
  }
  return hash.digest().subarray(0, 16).toString("base64url");
}

function javaScriptFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".js"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The release of the code a service renders its pages with: its own built code (`serviceFolder`, where its
 * entry point is), the platform's and the contracts'. The events and history services name it in every page
 * and item tag, beside what the page holds: a tag stands for the bytes a page renders to, and those depend on
 * the code as much as on the data. Their tags are made from content alone, so that every replica answers a
 * renewal alike; without the release, a renewal that a new release answered `unchanged` kept the edge's older
 * rendering until the data moved, after every release that renders differently, wherever an edge outlived it
 * or started before its last replica was replaced. (The catalogue's tags name its in-memory instance, so none
 * outlives a restart.)
 */
export function serviceRelease(serviceFolder: string): string {
  return codeIdentity([serviceFolder, __dirname, dirname(require.resolve("@odds/proto"))]);
}
