import { inSpan, WriteQueue } from "@odds/platform";
import type { Logger } from "pino";
import { Catalogue, countChanges, type CatalogueChanges, type CatalogueCycle } from "./domain/catalogue";
import { DEFAULT_MARKET_VIEW_BYTES } from "./domain/market-views";
import { CatalogueReads } from "./domain/reads";
import { appliedRecords, applyDuration, reloads } from "./metrics";
import type { CatalogueStore } from "./store";

export interface PersistedCatalogueOptions {
  /** An active event no cycle has carried for this long is treated as dropped out. */
  eventTtlMs: number;
  /** Memory bound of the markets kept rendered for reads; DEFAULT_MARKET_VIEW_BYTES when omitted. */
  marketViewBytes?: number;
  now?: () => number;
}

/**
 * Owns the in-memory catalogue: writes are serialised, persisted, then committed to memory;
 * reads never touch MongoDB. A replica that did not take a write reloads when the stored
 * revision moves on (`refreshIfBehind`, polled by main).
 */
export class PersistedCatalogue {
  readonly reads: CatalogueReads;
  private readonly writes = new WriteQueue();

  private constructor(
    private readonly store: CatalogueStore,
    private readonly logger: Logger,
    private readonly options: PersistedCatalogueOptions,
    private catalogue: Catalogue,
    private revision: number,
  ) {
    this.reads = new CatalogueReads(() => this.catalogue, options.marketViewBytes ?? DEFAULT_MARKET_VIEW_BYTES);
  }

  static async open(
    store: CatalogueStore,
    logger: Logger,
    options: PersistedCatalogueOptions,
  ): Promise<PersistedCatalogue> {
    const now = options.now ?? Date.now;
    const { snapshot, revision } = await store.load();
    const catalogue = Catalogue.fromSnapshot(snapshot, now());
    logger.info({ revision, events: snapshot.events.length, markets: catalogue.markets.size }, "catalogue loaded");
    return new PersistedCatalogue(store, logger, options, catalogue, revision);
  }

  /** Applies one ingest cycle. Idempotent: replaying it writes nothing. */
  apply(cycle: CatalogueCycle, cycleID: string): Promise<CatalogueChanges> {
    return this.writes.run(() =>
      inSpan("catalogue.apply", { "odds.cycle_id": cycleID, "odds.events": cycle.events.length }, async () => {
        const endTimer = applyDuration.startTimer();
        try {
          const now = (this.options.now ?? Date.now)();
          const changes = this.catalogue.changesOf(cycle, now - this.options.eventTtlMs);
          if (countChanges(changes) > 0) {
            this.revision = await this.store.save(changes, (kind, id) => this.catalogue.has(kind, id));
          }
          this.catalogue.commit(
            changes,
            now,
            cycle.events.map((event) => event.eventID),
          );
          for (const [kind, records] of Object.entries(changes)) appliedRecords.inc({ kind }, records.length);
          this.logger.info(
            {
              cycleID,
              events: cycle.events.length,
              changedEvents: changes.events.length,
              newMarkets: changes.markets.length,
            },
            "catalogue cycle applied",
          );
          return changes;
        } finally {
          endTimer();
        }
      }),
    );
  }

  /** Reloads everything when another replica has written since this one last did. */
  refreshIfBehind(): Promise<void> {
    return this.writes.run(async () => {
      const stored = await this.store.revision();
      if (stored === this.revision) return;
      const now = (this.options.now ?? Date.now)();
      const { snapshot, revision } = await this.store.load();
      this.catalogue = Catalogue.fromSnapshot(snapshot, now);
      this.revision = revision;
      reloads.inc();
      this.logger.info({ revision }, "catalogue reloaded after a write elsewhere");
    });
  }
}
