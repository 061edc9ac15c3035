// API keys never leave the request: not in any answer, not in any log line of any service.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { e2eStack, getV2 } from "../support/e2e";

describe("API keys are never exposed", () => {
  it("appear in no answer body and in no service's log, sent as header or query parameter, valid or not", async () => {
    const stack = e2eStack();
    const unknown = `odds_base_${"f".repeat(32)}_exposure_probe`;
    const keys = [...Object.values(stack.apiKeys), unknown];
    const probes = [
      "/events/?limit=1",
      "/events/?limit=abc",
      "/odds/history/",
      "/teams/?cursor=forged",
      "/nope",
      "/account/usage",
    ];
    for (const apiKey of [stack.apiKeys.base, unknown]) {
      for (const path of probes) {
        const inHeader = await getV2(path, { apiKey });
        const inQuery = await getV2(`${path}${path.includes("?") ? "&" : "?"}apiKey=${apiKey}`, { apiKey: null });
        for (const res of [inHeader, inQuery]) expect(JSON.stringify(res.body)).not.toContain(apiKey);
      }
    }
    const logsDir = join(stack.dataDir, "logs");
    const logs = readdirSync(logsDir).map((file) => [file, readFileSync(join(logsDir, file), "utf8")] as const);
    expect(logs.length).toBeGreaterThan(0);
    for (const [file, text] of logs) {
      for (const key of keys) expect([file, text.includes(key)]).toEqual([file, false]);
    }
  });
});
