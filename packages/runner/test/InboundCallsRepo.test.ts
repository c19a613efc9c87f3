import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import { InboundCallsRepo } from "@voiceagent/runner/Calls/InboundCalls"
import * as TestRuntime from "@voiceagent/runner/Testing/TestRuntime"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as crypto from "node:crypto"
import { waitingOnLock } from "./WalletLock.js"

const Runtime = Layer.mergeAll(UsersRepo.Default, InboundCallsRepo.Default).pipe(
  Layer.provideMerge(TestRuntime.layer())
)

describe(`inbound calls' sessions (${TestRuntime.backendName()})`, () => {
  // the real clock: the database's own lock wait is what is raced here
  layer(Runtime, { timeout: 120_000, excludeTestServices: true })((it) => {
    // PostgreSQL only: a second connection holds the first webhook's row uncommitted
    it.effect.skipIf(TestRuntime.backendName() === "pglite")(
      "a webhook that waits on its twin's insert gets the twin's session (was: none, a 500, seen in CI)",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const repo = yield* InboundCallsRepo
          const { tenant } = yield* (yield* UsersRepo).create({
            email: `in-${crypto.randomUUID()}@example.com`,
            passwordHash: "x",
            companyName: "Co"
          })
          const tenantId = tenant!.id as TenantId
          const callSid = `CA${crypto.randomUUID().replaceAll("-", "")}`
          const first = crypto.randomUUID() as SessionId
          const inserted = yield* Deferred.make<void>()
          const commit = yield* Deferred.make<void>()
          // the first webhook's insert, not yet committed
          const twin = yield* sql`
            INSERT INTO inbound_calls (carrier, carrier_call_id, session_id, tenant_id)
              VALUES ('twilio', ${callSid}, ${first}, ${tenantId})
          `.pipe(
            Effect.zipRight(Deferred.succeed(inserted, undefined)),
            Effect.zipRight(Deferred.await(commit)),
            sql.withTransaction,
            Effect.fork
          )
          yield* Deferred.await(inserted)
          const second = yield* Effect.fork(repo.sessionFor("twilio", callSid, tenantId))
          // the second waits on the first's row (the database's lock wait, in real time)
          yield* waitingOnLock("%INSERT INTO inbound_calls%")
          yield* Deferred.succeed(commit, undefined)
          yield* Fiber.join(twin)
          assert.strictEqual(yield* Fiber.join(second), first, "the twin's session")
          assert.strictEqual(yield* repo.sessionFor("twilio", callSid, tenantId), first, "and every time after")
        })
    )
  })
})
