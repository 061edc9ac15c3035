import type { Browser } from "playwright-core";
import { launchChromium } from "../support/browser";
import { e2eStack } from "../support/e2e";

describe("the API reference page in a browser", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("renders /v2/docs from this origin alone, with no console error or warning and no blocked, failed or foreign request, and lists every route", async () => {
    const { baseUrl } = e2eStack();
    const origin = new URL(baseUrl).origin;
    const openApi = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const page = await browser.newPage();
    // Scalar reports OpenAPI problems as a console warning ("document validation errors"), a CSP
    // block as a console error and a failed request: each is a defect of the page.
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") {
        problems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
      }
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    let lastRequestAtMs = Date.now();
    page.on("request", (request) => {
      lastRequestAtMs = Date.now();
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) {
        problems.push(`foreign request: ${url}`);
      }
    });
    page.on("requestfailed", (request) => {
      problems.push(`failed request: ${request.url()} (${request.failure()?.errorText ?? "unknown"})`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    const response = await page.goto(`${baseUrl}/docs`, { waitUntil: "load" });
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
    const paths = Object.keys(openApi.paths);
    // Scalar renders each operation with its path; wait until the last one is on the page.
    for (const path of paths) {
      await page.getByText(path, { exact: false }).first().waitFor({ state: "attached", timeout: 60_000 });
    }
    const text = await page.locator("body").innerText();
    for (const path of paths) expect(text).toContain(path);
    // Late loads (fonts, the AI registry) start after the first render: let the page settle until no request
    // has started for 2 s. (Playwright's "networkidle" never fires on this page, even on an idle machine, though
    // every request it makes has finished: something the page keeps open is not a request we can see.)
    for (const settleBy = Date.now() + 60_000; Date.now() - lastRequestAtMs < 2_000 && Date.now() < settleBy;) {
      await page.waitForTimeout(250);
    }
    expect(problems).toEqual([]);
    // No "Ask AI" control: the agent is disabled, so nothing on the page offers it.
    expect(await page.getByRole("button", { name: /ask ai/i }).count()).toBe(0);
    await page.close();
  }, 240_000);
});
