import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { InvalidArgumentError, NotFoundError, type KeyRevisions } from "@odds/platform";
import type { Collection, Db, IndexDescription } from "mongodb";
import { TIERS, type Tier } from "./plans";

/** Hex SHA-256 of an API key: the only form in which a key is ever stored or sent between services. */
export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** The public identifier of a key: the first 16 hex characters of its hash. */
export function keyIdOf(keyHash: string): string {
  return keyHash.slice(0, 16);
}

/** A new random key; the tier prefix only helps humans tell keys apart. */
export function mintApiKey(tier: Tier): string {
  return `odds_${tier}_${randomBytes(24).toString("base64url")}`;
}

export interface ApiKeyRecord {
  keyID: string;
  tier: Tier;
  isActive: boolean;
  customerID: string | null;
  email: string | null;
  createdAt: Date;
}

interface ApiKeyDocument extends Omit<ApiKeyRecord, "keyID"> {
  _id: string;
  keyHash: string;
}

export const KEY_INDEXES: Record<string, IndexDescription[]> = {
  api_keys: [{ key: { keyHash: 1 }, name: "keyHash_unique", unique: true }],
};

const HEX_SHA256 = /^[0-9a-f]{64}$/;

function toRecord(doc: ApiKeyDocument): ApiKeyRecord {
  return {
    keyID: doc._id,
    tier: doc.tier,
    isActive: doc.isActive,
    customerID: doc.customerID ?? null,
    email: doc.email ?? null,
    createdAt: doc.createdAt,
  };
}

export interface NewKey {
  tier: string;
  customerID?: string | null;
  email?: string | null;
}

function checkTier(tier: string): Tier {
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new InvalidArgumentError("tier", `expected one of ${TIERS.join(", ")}`);
  }
  return tier as Tier;
}

/**
 * API keys, stored only as hashes and addressed by keyID. A key created, activated or deactivated
 * gets a new revision once the change is stored (see KeyRevisions), so the edges see the change at
 * the key's next request.
 */
export class KeyRegistry {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(
    db: Db,
    private readonly revisions: KeyRevisions,
  ) {
    this.keys = db.collection<ApiKeyDocument>("api_keys");
  }

  /**
   * Finds a key by its hash. The record is looked up by its keyID, then the full hash
   * is compared in constant time so response timing reveals nothing about other keys.
   */
  async resolve(keyHash: string): Promise<ApiKeyRecord> {
    const normalized = keyHash.toLowerCase();
    if (!HEX_SHA256.test(normalized)) throw new InvalidArgumentError("keyHash", "expected a hex SHA-256");
    const doc = await this.keys.findOne({ _id: keyIdOf(normalized) });
    if (!doc || !timingSafeEqual(Buffer.from(doc.keyHash, "hex"), Buffer.from(normalized, "hex"))) {
      throw new NotFoundError("unknown API key");
    }
    return toRecord(doc);
  }

  /** Creates a key and returns it once; only its hash is kept. */
  async create(request: NewKey): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    const tier = checkTier(request.tier);
    const apiKey = mintApiKey(tier);
    const record = await this.store(apiKey, { ...request, tier });
    await this.revisions.changed(record.keyID);
    return { apiKey, record };
  }

  /**
   * Seeds a known key (deployment bootstrap). Idempotent: an existing key keeps its state. No
   * revision is written: the service seeds as it starts, before it answers any lookup.
   */
  async seed(apiKey: string, request: NewKey): Promise<ApiKeyRecord> {
    const keyHash = hashApiKey(apiKey);
    const existing = await this.keys.findOne({ _id: keyIdOf(keyHash) });
    if (existing) return toRecord(existing);
    return this.store(apiKey, { ...request, tier: checkTier(request.tier) });
  }

  async setActive(keyID: string, isActive: boolean): Promise<ApiKeyRecord> {
    const doc = await this.keys.findOneAndUpdate({ _id: keyID }, { $set: { isActive } }, { returnDocument: "after" });
    if (!doc) throw new NotFoundError(`no key with keyID ${keyID}`);
    await this.revisions.changed(keyID);
    return toRecord(doc);
  }

  async list(): Promise<ApiKeyRecord[]> {
    const docs = await this.keys.find({}).sort({ createdAt: 1, _id: 1 }).toArray();
    return docs.map(toRecord);
  }

  private async store(apiKey: string, request: NewKey & { tier: Tier }): Promise<ApiKeyRecord> {
    const keyHash = hashApiKey(apiKey);
    const doc: ApiKeyDocument = {
      _id: keyIdOf(keyHash),
      keyHash,
      tier: request.tier,
      isActive: true,
      customerID: request.customerID || null,
      email: request.email || null,
      createdAt: new Date(),
    };
    await this.keys.insertOne(doc);
    return toRecord(doc);
  }
}
