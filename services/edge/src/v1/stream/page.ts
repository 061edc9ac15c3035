import type Router from "@koa/router";
import { upgradeRequired } from "../../http/errors";
import { DOCS_CONTENT_SECURITY_POLICY } from "../../openapi/docs";
import { STREAM_PATH } from "./protocol";

/**
 * A page that shows the live odds stream of one event: the key and event are typed in, the page
 * subscribes over WebSocket (the key in the subscription, as browsers cannot set headers) and
 * redraws the prices at every snapshot. Same origin only, like the reference page.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sports Odds Read API v1: live odds stream</title>
    <link rel="icon" href="data:," />
    <style>
      body { font: 14px system-ui, sans-serif; margin: 1.5rem; }
      input { width: 22rem; margin-right: 0.5rem; }
      table { border-collapse: collapse; margin-top: 1rem; }
      td, th { border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; }
      #status { font-weight: bold; }
    </style>
  </head>
  <body>
    <h1>Live odds stream (v1, Pro plan)</h1>
    <form id="subscribe">
      <label>API key <input id="key" type="password" autocomplete="off" required /></label>
      <label>Event <input id="event" placeholder="ev_..." required /></label>
      <button id="connect" type="submit">Connect</button>
    </form>
    <p>Status: <span id="status">not connected</span>. Snapshots: <span id="snapshots">0</span>,
      heartbeats: <span id="heartbeats">0</span>, cycle: <span id="cycle">-</span></p>
    <table>
      <thead><tr><th>Market</th><th>Outcome</th><th>Bookmaker</th><th>Decimal odds</th><th>Observed at</th></tr></thead>
      <tbody id="prices"></tbody>
    </table>
    <script src="/v1/docs/stream.js"></script>
  </body>
</html>
`;

const SCRIPT = `"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let socket;
  const counts = { snapshot: 0, heartbeat: 0 };
  const cell = (text) => { const td = document.createElement("td"); td.textContent = text; return td; };
  function draw(eventOdds) {
    const rows = [];
    for (const odds of eventOdds) {
      for (const market of odds.markets || []) {
        for (const outcome of market.outcomes) {
          for (const price of outcome.prices) {
            const tr = document.createElement("tr");
            tr.append(cell(market.name), cell(outcome.side), cell(price.bookmaker),
              cell(price.decimal_odds === null ? "-" : String(price.decimal_odds)), cell(price.observed_at));
            rows.push(tr);
          }
        }
      }
    }
    $("prices").replaceChildren(...rows);
  }
  $("subscribe").addEventListener("submit", (event) => {
    event.preventDefault();
    if (socket) socket.close();
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(scheme + "://" + location.host + ${JSON.stringify(STREAM_PATH)});
    $("status").textContent = "connecting";
    socket.addEventListener("open", () => {
      $("status").textContent = "open";
      socket.send(JSON.stringify({ type: "subscribe", event_ids: [$("event").value.trim()],
        authorization: "Bearer " + $("key").value.trim() }));
    });
    socket.addEventListener("message", (message) => {
      const body = JSON.parse(message.data);
      counts[body.type] = (counts[body.type] || 0) + 1;
      $("snapshots").textContent = String(counts.snapshot);
      $("heartbeats").textContent = String(counts.heartbeat);
      $("cycle").textContent = body.cycle_at;
      if (body.type === "snapshot") draw(body.data);
    });
    socket.addEventListener("close", (close) => {
      $("status").textContent = "closed " + close.code + (close.reason ? ": " + close.reason : "");
    });
  });
})();
`;

/**
 * The stream's page and script under /v1/docs, and a plain GET of the stream itself (a WebSocket, served by the HTTP
 * server's upgrades: server.ts), which is told so with a 426 problem instead of a 404. `router` is v1's, under /v1.
 */
export function mountStreamPage(router: Router): void {
  router.get(STREAM_PATH.replace(/^\/v1/, ""), () => {
    throw upgradeRequired(`${STREAM_PATH} is a WebSocket: connect with Upgrade: websocket (see /v1/docs/stream)`);
  });
  router.get("/docs/stream", (ctx) => {
    ctx.type = "text/html";
    ctx.set("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    ctx.body = PAGE;
  });
  router.get("/docs/stream.js", (ctx) => {
    ctx.type = "application/javascript";
    ctx.body = SCRIPT;
  });
}
