// deploy/local/scratch-run.sh, through which `npm test` runs Jest: the command gets a TMPDIR of its own,
// and that folder is gone when the command ends, whether it passed, failed or was interrupted.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { waitUntil } from "./processes";
import { REPO_ROOT } from "./stack";
import { commandsInGroup } from "./testing/proc-stat";
import { removeScratchFolder, scratchFolder } from "./testing/scratch";

const SCRIPT = join(REPO_ROOT, "deploy", "local", "scratch-run.sh");
/** The command under test: says the TMPDIR it got and Node's tmpdir() in it, and leaves a folder with a file there. */
const LEAVES_FILES =
  'echo "$TMPDIR"; node -p "require(\'os\').tmpdir()"; mkdir "$TMPDIR/store"; touch "$TMPDIR/store/log"';

let parent: string;
beforeEach(() => (parent = scratchFolder("scratch-run-test-")));
afterEach(() => removeScratchFolder(parent));

/** This process's environment without KEEP_TEST_DATA (a run kept for a post-mortem), and TMPDIR the test's own. */
const scriptEnv = (extra: Record<string, string> = {}) => {
  const { KEEP_TEST_DATA: _kept, ...inherited } = process.env;
  return { ...inherited, TMPDIR: parent, ...extra };
};

const run = (command: string, env: Record<string, string> = {}) =>
  spawnSync("bash", [SCRIPT, "bash", "-c", command], { env: scriptEnv(env), encoding: "utf8" });

describe("scratch-run.sh", () => {
  it("gives the command a TMPDIR of its own, which Node's tmpdir() follows, and removes it after a pass", () => {
    const result = run(`${LEAVES_FILES}; exit 0`);
    expect(result.status).toBe(0);
    const [given, nodes] = result.stdout.trim().split("\n");
    expect(dirname(given)).toBe(parent);
    expect(basename(given)).toMatch(/^odds-test-run-/);
    expect(nodes).toBe(given);
    expect(existsSync(given)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("removes it after a failure too, and exits with the command's status", () => {
    const result = run(`${LEAVES_FILES}; exit 3`);
    expect(result.status).toBe(3);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("keeps it with KEEP_TEST_DATA=1 and says where", () => {
    const result = run(`${LEAVES_FILES}; exit 1`, { KEEP_TEST_DATA: "1" });
    expect(result.status).toBe(1);
    const given = result.stdout.split("\n")[0];
    expect(result.stdout).toContain(`kept the run's scratch folders in ${given}`);
    expect(existsSync(join(given, "store", "log"))).toBe(true);
  });

  it("removes it when interrupted (Ctrl-C: SIGINT to the process group) while the command runs", async () => {
    const child = spawn("bash", [SCRIPT, "bash", "-c", `${LEAVES_FILES}; sleep 30`], {
      env: scriptEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(signal ?? code)),
    );
    try {
      // Interrupted once the command has made its folder (its TMPDIR said, its file written) and is in its `sleep`.
      // Not as soon as the file shows: `touch` may not have been reaped yet, and a shell waiting for a child that
      // exits 0 takes a SIGINT as handled by that child (bash's "wait and cooperative exit") and goes on to sleep.
      await waitUntil(
        "the command's folder made, and the command sleeping",
        async () => {
          const given = out.split("\n")[0];
          if (!given || !existsSync(join(given, "store", "log"))) throw new Error(`it said ${JSON.stringify(out)}`);
          const group = commandsInGroup(child.pid!);
          if (!group.includes("sleep")) throw new Error(`its process group runs ${group.join(", ")}`);
        },
        { timeoutMs: 20_000, intervalMs: 20 },
      );
      process.kill(-child.pid!, "SIGINT");
      expect(await ended).toBe("SIGINT");
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      // A failed check leaves no `sleep` behind.
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  });
});
