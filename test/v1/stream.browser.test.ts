import { v1 } from "@odds/proto";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/browser";
import { e2eStack, getV2 } from "../support/e2e";
import { v1BaseUrl } from "./client";

describe("the live odds stream page in a browser", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("shows the chosen event's prices from the stream and redraws them at the next snapshot", async () => {
    const events = await getV2("/events/?oddsAvailable=true&limit=1", { tier: "internal" });
    expect(events.body.data.length).toBe(1);
    const eventID = v1.v1Id("event", events.body.data[0].eventID);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${v1BaseUrl()}/docs/stream`, { waitUntil: "load" });
    await page.fill("#key", e2eStack().apiKeys.pro);
    await page.fill("#event", eventID);
    await page.click("#connect");
    await page.waitForFunction(() => document.querySelectorAll("#prices tr").length > 0, undefined, {
      timeout: 30_000,
    });
    expect(await page.textContent("#status")).toBe("open");
    const prices = await page.$$eval("#prices tr td:nth-child(4)", (cells) => cells.map((cell) => cell.textContent));
    expect(prices.some((price) => /^\d+(\.\d+)?$/.test(price ?? ""))).toBe(true);
    // The feed cycles every 5 s: a second snapshot (or a heartbeat, when the odds did not change) follows.
    await page.waitForFunction(
      () =>
        Number(document.getElementById("snapshots")!.textContent) +
          Number(document.getElementById("heartbeats")!.textContent) >=
        2,
      undefined,
      { timeout: 30_000 },
    );
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
