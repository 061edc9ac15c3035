import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeScratchFolder, scratchFolder } from "@odds/local";
import { objects } from "@odds/proto";
import { createClient } from "redis";
import { e2eStack } from "../support/e2e";
import { admittedPath, admittedWindowKey, startBareServer } from "./bare-server";

describe("the bench's bare server", () => {
  const dir = scratchFolder("bench-bare-");
  afterAll(() => removeScratchFolder(dir));
  const body = Buffer.from('{"success":true,"data":[{"sportID":"AUSSIE_RULES"}]}');
  writeFileSync(join(dir, "0.json"), body);
  const index = join(dir, "bodies.json");
  writeFileSync(
    index,
    JSON.stringify([{ file: join(dir, "0.json"), headers: { "content-type": "application/json" } }]),
  );

  test("answers a body's bytes, and on the admitted path the same bytes after one rate-limit call counted in Redis", async () => {
    const redisUrl = e2eStack().uris.redis!;
    const prefix = `bench-admitted-test-${randomBytes(4).toString("hex")}`;
    const bare = await startBareServer(index, redisUrl, prefix);
    const redis = createClient({ url: redisUrl });
    await redis.connect();
    try {
      const origin = `http://127.0.0.1:${bare.port}`;
      const plain = await fetch(`${origin}/0`);
      expect(plain.status).toBe(200);
      expect(Buffer.from(await plain.arrayBuffer())).toEqual(body);
      for (let i = 0; i < 3; i += 1) {
        const admitted = await fetch(`${origin}${admittedPath(0)}`);
        expect(admitted.status).toBe(200);
        expect(admitted.headers.get("content-type")).toBe("application/json");
        expect(Buffer.from(await admitted.arrayBuffer())).toEqual(body);
      }
      // Every window counted each admitted request once, and took one carried entity with it, as the edge's call does.
      for (const window of objects.RATE_WINDOWS) {
        expect(await redis.hGetAll(admittedWindowKey(prefix, window))).toEqual({ r: "3", e: "3" });
      }
      expect((await fetch(`${origin}${admittedPath(1)}`)).status).toBe(404);
    } finally {
      await redis.quit();
      await bare.close();
    }
  });

  test("without Redis there is no admitted path", async () => {
    const bare = await startBareServer(index, undefined);
    try {
      const origin = `http://127.0.0.1:${bare.port}`;
      expect((await fetch(`${origin}/0`)).status).toBe(200);
      expect((await fetch(`${origin}${admittedPath(0)}`)).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
