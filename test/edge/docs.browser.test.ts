import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { e2eStack } from "../support/e2e";

const CHROMIUM = "/usr/bin/chromium";

// Debian's chromium (installed by deploy/local/prepare-test-tools.sh), never a downloaded browser.
describe("the API reference page in a browser", () => {
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: run deploy/local/prepare-test-tools.sh as root`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("renders /v2/docs from local assets only and lists every route of the OpenAPI document", async () => {
    const { baseUrl } = e2eStack();
    const openApi = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const page = await browser.newPage();
    // Scalar's bundle names remote fonts and services; the page's CSP blocks them, so none may complete.
    const foreignLoads: string[] = [];
    page.on("requestfinished", (request) => {
      const url = request.url();
      if (!url.startsWith(new URL(baseUrl).origin) && !url.startsWith("data:") && !url.startsWith("blob:")) {
        foreignLoads.push(url);
      }
    });
    const response = await page.goto(`${baseUrl}/docs`, { waitUntil: "load" });
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
    const paths = Object.keys(openApi.paths);
    // Scalar renders each operation with its path; wait until the last one is on the page.
    for (const path of paths) {
      await page.getByText(path, { exact: false }).first().waitFor({ state: "attached", timeout: 30_000 });
    }
    const text = await page.locator("body").innerText();
    for (const path of paths) expect(text).toContain(path);
    expect(foreignLoads).toEqual([]);
    await page.close();
  }, 90_000);
});
