// An event's status flags and display, and the state of the period each market settles on.
import type { FeedEvent } from "../../sources/feed-source";
import { periodName } from "../market-names";
import type { EventState, SideOdds } from "../model";
import { toToken } from "../odd-id";

export interface PeriodState {
  started: boolean;
  ended: boolean;
  cancelled: boolean;
}

function stateFlags(state: FeedEvent["state"]) {
  const ended = state === "ENDED" || state === "FINAL";
  return {
    started: state === "LIVE" || ended,
    ended,
    live: state === "LIVE",
    cancelled: state === "CANCELLED",
    delayed: state === "DELAYED",
    finalized: state === "FINAL",
  };
}

/** The whole game follows the event's state; other periods follow the feed's started and ended lists. */
export function periodStateOf(event: FeedEvent): (periodID: string) => PeriodState {
  const { started, ended, cancelled } = stateFlags(event.state);
  const periodsStarted = event.periodsStarted.map(toToken);
  const periodsEnded = event.periodsEnded.map(toToken);
  return (periodID) => ({
    started: periodID === "game" ? started : periodsStarted.includes(periodID),
    ended: periodID === "game" ? ended : periodsEnded.includes(periodID),
    cancelled,
  });
}

export function eventStatus(event: FeedEvent, odds: Record<string, SideOdds>): EventState["status"] {
  const flags = stateFlags(event.state);
  const currentPeriodID = event.currentPeriod ? toToken(event.currentPeriod) : "";
  const display = statusDisplay(event.state, currentPeriodID);
  return {
    ...flags,
    completed: flags.ended,
    startsAtMs: event.startsAt.getTime(),
    oddsPresent: Object.keys(odds).length > 0,
    oddsAvailable: Object.values(odds).some((o) => o.bookOddsAvailable),
    currentPeriodID,
    periodsStarted: event.periodsStarted.map(toToken),
    periodsEnded: event.periodsEnded.map(toToken),
    displayShort: display.short,
    displayLong: display.long,
  };
}

function statusDisplay(state: FeedEvent["state"], currentPeriodID: string): { short: string; long: string } {
  switch (state) {
    case "LIVE":
      return periodName(currentPeriodID);
    case "ENDED":
      return { short: "F", long: "Final (awaiting confirmation)" };
    case "FINAL":
      return { short: "F", long: "Final" };
    case "CANCELLED":
      return { short: "CAN", long: "Cancelled" };
    case "DELAYED":
      return { short: "DEL", long: "Delayed" };
    default:
      return { short: "", long: "Scheduled" };
  }
}
