import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { ApiKeyId, UserId } from "@voiceagent/domain/Ids"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Effect, Layer, Option } from "effect"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"

const Repos = Layer.mergeAll(UsersRepo.Default, ApiKeysRepo.Default).pipe(Layer.provideMerge(TestDatabase.layer))

const email = () => `repo-${crypto.randomUUID()}@example.com`

const newKey = (userId: UserId, overrides: Partial<{ expiresAt: Date | null }> = {}) => ({
  id: uuidv7() as ApiKeyId,
  userId,
  name: "k",
  prefix: "aok_test",
  keyHash: crypto.randomBytes(32),
  signingSecret: "whsec_x",
  webhookUrl: null,
  agentId: null,
  expiresAt: overrides.expiresAt ?? null
})

describe(`repositories (${TestDatabase.backend()})`, () => {
  it.layer(Repos, { timeout: 120_000 })((it) => {
    it.effect("users: create with a tenant in one transaction; a duplicate e-mail leaves nothing behind", () =>
      Effect.gen(function*() {
        const users = yield* UsersRepo
        const sql = yield* SqlClient.SqlClient
        const address = email()
        const created = yield* users.create({ email: address, passwordHash: "h", companyName: "Co" })
        assert.strictEqual(created.tenant?.name, "Co")
        const [before] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM tenants`
        const duplicate = yield* Effect.flip(
          users.create({ email: address.toUpperCase(), passwordHash: "h", companyName: "Other" })
        )
        assert.strictEqual(duplicate._tag, "EmailAlreadyUsed")
        const [after] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM tenants`
        assert.strictEqual(after!.n, before!.n)
        const found = yield* users.findByEmail(address.toUpperCase())
        assert.strictEqual(Option.getOrThrow(found).user.id, created.user.id)
      }))

    it.effect("users: a tenant is created for a user at most once, even concurrently", () =>
      Effect.gen(function*() {
        const users = yield* UsersRepo
        const { user } = yield* users.create({ email: email(), passwordHash: "h", companyName: undefined })
        const results = yield* Effect.all(
          Array.from({ length: 5 }, (_, i) => users.createTenantFor(user.id, `Co ${i}`)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter(Option.isSome).length, 1)
      }))

    it.effect("api keys: found by hash until revoked; listed by the owner's tenant", () =>
      Effect.gen(function*() {
        const users = yield* UsersRepo
        const keys = yield* ApiKeysRepo
        const { tenant, user } = yield* users.create({ email: email(), passwordHash: "h", companyName: "Co" })
        const key = newKey(user.id, { expiresAt: new Date("2099-01-01T00:00:00Z") })
        yield* keys.insert(key)
        const found = Option.getOrThrow(yield* keys.findCredential(key.keyHash))
        assert.strictEqual(found.id, key.id)
        assert.strictEqual(found.user.id, user.id)
        assert.strictEqual(found.user.email, user.email)
        assert.strictEqual(found.user.tenantId, tenant!.id)
        assert.deepStrictEqual(found.tenant, tenant)
        assert.strictEqual(found.expiresAt?.toISOString(), "2099-01-01T00:00:00.000Z")
        assert.isTrue(Buffer.from(found.keyHash).equals(key.keyHash))

        const scope = { userId: user.id, tenantId: tenant!.id }
        const page = yield* keys.list(scope, { page: 1, pageSize: 10 })
        assert.strictEqual(page.total, 1)

        const stranger = yield* users.create({ email: email(), passwordHash: "h", companyName: "Other" })
        assert.isFalse(yield* keys.revoke({ userId: stranger.user.id, tenantId: stranger.tenant!.id }, key.id))
        assert.isTrue(yield* keys.revoke(scope, key.id))
        assert.isFalse(yield* keys.revoke(scope, key.id))
        assert.isTrue(Option.isNone(yield* keys.findCredential(key.keyHash)))
        assert.strictEqual((yield* keys.list(scope, { page: 1, pageSize: 10 })).total, 0)
      }))
  })
})
