import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codeIdentity, serviceRelease } from "./code-identity";

describe("codeIdentity", () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

  /** A built folder with these files (path -> text), somewhere of its own. */
  function built(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), "code-identity-"));
    roots.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  const release = { "main.js": "render(1);", "routes/list.js": "list();", "main.js.map": "{}", "main.d.ts": "x" };

  test("is the same for the same code installed anywhere, whatever else lies beside it", () => {
    const here = codeIdentity([built(release)]);
    expect(codeIdentity([built(release)])).toBe(here);
    expect(codeIdentity([built({ ...release, "main.js.map": "{ }", "README.md": "notes" })])).toBe(here);
    expect(here).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  test("changes with any byte, name or place of the code", () => {
    const here = codeIdentity([built(release)]);
    const others = [
      codeIdentity([built({ ...release, "main.js": "render(2);" })]),
      codeIdentity([built({ ...release, "routes/list.js": "list(); " })]),
      codeIdentity([built({ ...release, "routes/more.js": "" })]),
      codeIdentity([built({ "main.js": "render(1);", "routes/page.js": "list();" })]),
      codeIdentity([built({ "main.js": "render(1);" }), built({ "routes/list.js": "list();" })]),
    ];
    expect(new Set([here, ...others]).size).toBe(others.length + 1);
  });

  test("a service's release also names the platform's and the contracts' code", () => {
    const service = built(release);
    expect(serviceRelease(service)).toBe(serviceRelease(service));
    expect(serviceRelease(service)).not.toBe(codeIdentity([service]));
    expect(serviceRelease(built({ ...release, "main.js": "render(2);" }))).not.toBe(serviceRelease(service));
  });
});
