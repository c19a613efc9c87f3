import { assert, describe, it } from "@effect/vitest"
import type { ApiKeyId, TenantId, UserId } from "@voiceagent/domain/Ids"
import { Tenant, User } from "@voiceagent/domain/Users"
import { CredentialCache } from "@voiceagent/http/Auth/CredentialCache"
import type { KeyCredential } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"

/** A UUID named by a short label, so the cases read as names. */
const uuid = (label: string) => `00000000-0000-4000-8000-${Buffer.from(label).toString("hex").padStart(12, "0")}`

const credential = (id: string, userId: string, tenantId: string | null): KeyCredential => ({
  id: uuid(id) as ApiKeyId,
  keyHash: new Uint8Array(32),
  expiresAt: null,
  lastUsedAt: null,
  user: new User({
    id: uuid(userId) as UserId,
    email: `${userId}@example.com`,
    tenantId: (tenantId === null ? null : uuid(tenantId)) as TenantId | null,
    createdAt: new Date(0)
  }),
  tenant: tenantId === null
    ? null
    : new Tenant({ id: uuid(tenantId) as TenantId, name: "Co", currency: "USD", createdAt: new Date(0) })
})

describe("CredentialCache", () => {
  it("keeps a checked key for its time to live, no longer", () => {
    const cache = new CredentialCache(2_000)
    cache.keep("h", credential("k", "u", "t"), 1_000, cache.generation)
    assert.strictEqual(cache.find("h", 2_999)?.id, uuid("k"))
    assert.isUndefined(cache.find("h", 3_000))
    assert.strictEqual(cache.size, 0)
  })

  it("forgets a revoked key, a user given a tenant and a renamed tenant's keys at once", () => {
    const cache = new CredentialCache(2_000)
    cache.keep("a", credential("ka", "ua", "t1"), 0, cache.generation)
    cache.keep("b", credential("kb", "ub", "t1"), 0, cache.generation)
    cache.keep("c", credential("kc", "uc", null), 0, cache.generation)
    cache.keep("d", credential("kd", "ud", "t2"), 0, cache.generation)
    cache.forgetKey(uuid("ka") as ApiKeyId)
    assert.isUndefined(cache.find("a", 1))
    assert.isDefined(cache.find("b", 1))
    cache.forgetUser(uuid("uc") as UserId)
    assert.isUndefined(cache.find("c", 1))
    cache.forgetTenant(uuid("t1") as TenantId)
    assert.isUndefined(cache.find("b", 1))
    assert.strictEqual(cache.find("d", 1)?.id, uuid("kd"))
  })

  it("does not keep a row read before a change: the change would be undone for the time to live", () => {
    const cache = new CredentialCache(2_000)
    const readIn = cache.generation
    // the key is revoked (and forgotten) while its row is on its way back from the database
    cache.forgetKey(uuid("k") as ApiKeyId)
    cache.keep("h", credential("k", "u", "t"), 0, readIn)
    assert.isUndefined(cache.find("h", 1))
    cache.keep("h", credential("k", "u", "t"), 0, cache.generation)
    assert.isDefined(cache.find("h", 1))
  })

  it("holds at most its capacity, dropping the oldest", () => {
    const cache = new CredentialCache(2_000, 2)
    for (const h of ["a", "b", "c"]) cache.keep(h, credential(`k${h}`, "u", "t"), 0, cache.generation)
    assert.strictEqual(cache.size, 2)
    assert.isUndefined(cache.find("a", 1))
    assert.isDefined(cache.find("c", 1))
  })
})
