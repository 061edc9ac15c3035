/**
 * What the contract's "date-time (ISO 8601)" admits, decided once: a calendar date alone
 * (`2026-11-20`, midnight UTC), or a date, `T`, hours and minutes with optional seconds and
 * fraction, and a required offset (`Z` or `±HH:MM`): RFC 3339's profile of ISO 8601. A space
 * instead of `T`, a missing offset (ambiguous: whose local time?) and impossible calendar
 * values (`2026-02-30`, `24:00`) are refused rather than rolled over to another instant.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2})))?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Unix milliseconds of an admitted date-time, or undefined when the text is not one. */
export function parseDateTime(raw: string): number | undefined {
  const match = DATE_TIME.exec(raw);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (h === undefined) return Date.UTC(year, month - 1, day);
  if (zulu === undefined && sign === undefined) return undefined;
  const [hour, minute, second] = [Number(h), Number(mi), Number(s ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  if (Number(offH ?? 0) > 23 || Number(offM ?? 0) > 59) return undefined;
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}
