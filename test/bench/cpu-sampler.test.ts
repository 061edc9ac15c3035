import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { CpuSampler } from "./cpu-sampler";

describe("CpuSampler", () => {
  test("reads the CPU a process used over a window, and nothing outside what it sampled", async () => {
    // A child that spins for 600 ms of CPU, then sleeps: the window around its spin holds that CPU.
    const child = spawn(process.execPath, [
      "-e",
      "const end = process.cpuUsage(); while (true) { const u = process.cpuUsage(end); if (u.user + u.system > 600000) break; } setTimeout(() => {}, 60000);",
    ]);
    const sampler = new CpuSampler(() => ({ spinner: child.pid, gone: 999_999_999 }), 50);
    try {
      sampler.start();
      const first = sampler.sample();
      const from = Date.now();
      expect(sampler.between(from - 60_000, from)).toBeNull();
      // However slowly a loaded machine runs the child, its 600 ms of CPU is used before it idles.
      let used: Record<string, number> | null = null;
      for (let waited = 0; waited < 30_000; waited += 100) {
        await sleep(100);
        used = sampler.between(from, Date.now() - 60);
        if (used && (used.spinner ?? 0) >= 500) break;
      }
      expect(used?.spinner).toBeGreaterThanOrEqual(500);
      // The same CPU read from a sample of one's own, up to now.
      expect(sampler.since(first).spinner).toBeGreaterThanOrEqual(500);
      // A process that does not exist has no sample, rather than a zero.
      expect(used).not.toHaveProperty("gone");
    } finally {
      sampler.stop();
      child.kill();
    }
  });
});
