import { randomUUID } from "node:crypto";
import { unaryHandler, type Logger } from "@odds/platform";
import { usage } from "@odds/proto";
import type { ApiKeyRecord, KeyRegistry } from "./keys";
import type { Plan, PlanBook } from "./plans";
import type { UsageRollups } from "./usage-rollups";

function keyMessage(record: ApiKeyRecord): usage.KeyRecord {
  return usage.KeyRecord.create({
    keyId: record.keyID,
    tier: record.tier,
    isActive: record.isActive,
    customerId: record.customerID ?? "",
    email: record.email ?? "",
    createdAtMs: record.createdAt.getTime(),
  });
}

export function planMessage(plan: Plan): usage.Plan {
  return usage.Plan.create({
    tier: plan.tier,
    allSports: plan.sportIDs === null,
    sportIds: plan.sportIDs ?? [],
    allLeagues: plan.leagueIDs === null,
    leagueIds: plan.leagueIDs ?? [],
    allBookmakers: plan.bookmakerIDs === null,
    bookmakerIds: plan.bookmakerIDs ?? [],
    fairOdds: plan.fairOdds,
    history: plan.history,
    maxStreams: plan.maxStreams,
    limits: plan.limits.map((limit) => ({
      window: limit.window,
      maxRequests: limit.maxRequests ?? undefined,
      maxEntities: limit.maxEntities ?? undefined,
    })),
  });
}

/** Maps UsageService RPCs onto the key registry, the plan book and the usage rollups. */
export function usageService(
  logger: Logger,
  deps: { keys: KeyRegistry; plans: PlanBook; rollups: UsageRollups },
): usage.UsageServiceServer {
  return {
    resolveKey: unaryHandler(logger, async (req: usage.ResolveKeyRequest) => {
      const record = await deps.keys.resolve(req.keyHash);
      return { key: keyMessage(record), plan: planMessage(deps.plans.planFor(record.tier)) };
    }),
    recordUsage: unaryHandler(logger, async (req: usage.RecordUsageRequest) => {
      // A caller that neither numbers nor names its batch gets an id: its call is then counted once per call.
      const batch = req.senderId
        ? { senderID: req.senderId, sequence: req.sequence }
        : { batchID: req.batchId || randomUUID() };
      await deps.rollups.record(batch, req.keyId, req.atMs || Date.now(), req.requests, req.entities);
      return {};
    }),
    createKey: unaryHandler(logger, async (req: usage.CreateKeyRequest) => {
      const created = await deps.keys.create({ tier: req.tier, customerID: req.customerId, email: req.email });
      logger.info({ keyID: created.record.keyID, tier: created.record.tier }, "API key created");
      return { apiKey: created.apiKey, key: keyMessage(created.record) };
    }),
    setKeyActive: unaryHandler(logger, async (req: usage.SetKeyActiveRequest) => {
      const record = await deps.keys.setActive(req.keyId, req.isActive);
      logger.info({ keyID: record.keyID, isActive: record.isActive }, "API key state changed");
      return keyMessage(record);
    }),
    listKeys: unaryHandler(logger, async () => ({ keys: (await deps.keys.list()).map(keyMessage) })),
  };
}
