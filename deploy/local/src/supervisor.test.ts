import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnManaged, waitUntil } from "./processes";
import { superviseRestarts } from "./supervisor";

const logFile = join(tmpdir(), `supervisor-test-${process.pid}.log`);
const node = (script: string) => () => spawnManaged("svc", process.execPath, ["-e", script], { logFile });

describe("superviseRestarts: the local launcher's crash restarts", () => {
  it("restarts a crashed or SIGKILLed service with a growing backoff, reports it, and stops for good on stop()", async () => {
    const messages: string[] = [];
    let spawns = 0;
    const spawn = () => {
      spawns += 1;
      // The first start crashes at once; the later ones run until killed.
      return spawns === 1 ? node("process.exit(3)")() : node("setInterval(() => undefined, 1000)")();
    };
    const proc = superviseRestarts("svc", spawn, { notify: (m) => messages.push(m), initialBackoffMs: 100 });
    try {
      await waitUntil("first restart", async () => expect(proc.restarts).toBe(1), { timeoutMs: 20_000 });
      const second = proc.child;
      second.kill("SIGKILL");
      await waitUntil("second restart", async () => expect(proc.restarts).toBe(2), { timeoutMs: 20_000 });
      expect(proc.child).not.toBe(second);
      expect(proc.child.exitCode).toBeNull();
      expect(messages).toEqual([
        "svc exited (code 3); restarting in 100 ms",
        "svc restarted (restart 1)",
        // Died again before the reset period: the backoff doubled.
        "svc exited (SIGKILL); restarting in 200 ms",
        "svc restarted (restart 2)",
      ]);
    } finally {
      await proc.stop(2_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(proc.restarts).toBe(2);
    expect(spawns).toBe(3);
  });
});
