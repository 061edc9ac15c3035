import { join } from "node:path";
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import type { HeldEvent, Preparation, StoredEventData, StoredPreparation } from "./event-preparation";
import type { PreparedEvent } from "./read-model";

/** The built worker script (`prepare-worker.ts` compiled beside this file). */
export const PREPARE_WORKER = join(__dirname, "prepare-worker.js");

/**
 * The preparation thread's young generation, in MB (V8's own is 48: three semi-spaces of 16). Its heap holds
 * 23-24 MB between cycles and allocates in bursts of rendering and packing: with V8's own sizes it stood at 73-77
 * MB committed, with this at 43-55, and the events service ran 20-25 MB lower over a probe's cycles
 * (docs/performance.md "The events service's memory, looked at once more") for no CPU measured beyond the noise. The
 * serving thread keeps V8's own: there a smaller young generation cost cold reads CPU.
 */
export const PREPARATION_YOUNG_GENERATION_MB = 12;

/**
 * Prepares an apply's events, and a load's from the store, on a worker thread of their own
 * (`prepareEvents`, `prepareStoredEvents`), so the serving thread only swaps the prepared events in.
 * One thread: applies and loads run one at a time. A worker that dies fails the call or load it was
 * preparing (ingest sends a call again; a load is tried again at the next poll) and is replaced.
 */
export class EventPreparer {
  private readonly pool: Piscina;

  constructor(filename = PREPARE_WORKER) {
    this.pool = new Piscina({
      filename,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Not the parent's flags: its `--require` of tracing would start a second exporter in the worker.
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: PREPARATION_YOUNG_GENERATION_MB },
    });
  }

  /**
   * Each event (encoded, each once) with what the read model holds of it, `held` by eventID. The
   * events go as the views into their call's message they are: a structured clone copies a buffer
   * that several views share once, into the message to the worker, and no buffer is made here (a
   * copy of each made the call's protobuf once more here, as memory V8 counts toward its next full
   * collection). A held market book goes as it is too: loaded or applied, it is bytes of its own
   * that the worker sent back.
   */
  prepare(
    sent: { eventID: string; encoded: Uint8Array }[],
    held: (eventID: string) => PreparedEvent | undefined,
    observedAtMs: number,
  ): Promise<Preparation[]> {
    const events = sent.map(({ eventID, encoded }) => {
      const event = held(eventID);
      return { encoded, ...(event ? { held: heldOf(event) } : {}) };
    });
    return this.pool.run({ events, observedAtMs }) as Promise<Preparation[]>;
  }

  /** Stored events (`EventStore.loadEventsSince`), each with its parts but the packed contract it came with. */
  prepareStored(stored: StoredEventData[]): Promise<StoredPreparation[]> {
    return this.pool.run(stored, { name: "prepareStoredEvents" }) as Promise<StoredPreparation[]>;
  }

  /** The V8 limits the preparation thread runs with (none before it has started). */
  threadLimits(): ResourceLimits | undefined {
    return this.pool.threads[0]?.resourceLimits;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** What the read model holds of an event, as its preparation needs it. */
function heldOf(event: PreparedEvent): HeldEvent {
  return {
    contentHash: event.contentHash,
    settlement: event.settlement,
    marketBook: event.marketBook.packed,
  };
}
