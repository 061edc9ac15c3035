import { pageLimits } from "@odds/proto";
import { InvalidArgumentError } from "./errors";

/** A read RPC's requested page size (0 = the route's default); outside its bounds is INVALID_ARGUMENT naming `limit`. */
export function requestedPageLimit(requested: number, bounds: pageLimits.PageLimit): number {
  const checked = pageLimits.checkPageLimit(requested, bounds);
  if ("refused" in checked) throw new InvalidArgumentError("limit", checked.refused);
  return checked.limit;
}
