import { assert, describe, layer } from "@effect/vitest"
import { createPlatformClient, multipart, type PlatformClient } from "@voiceagent/client"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { platformDocument } from "../scripts/Contract.js"

// The generated client against the whole platform in-process (three services and the gateway on
// free ports, PGlite or DATABASE_URL's PostgreSQL), over real HTTP, through the gateway only.
// The simulated carrier rings for 200 ms; numbers ending in 000 answer and hang up at once.

/** An openapi-fetch call as an Effect. */
const call = <A>(request: () => Promise<A>) => Effect.promise(request)

/** openapi-fetch's answer, asserted to be a success with `status`: its typed data. */
const expectData = <D>(
  reply: { readonly data?: D; readonly error?: unknown; readonly response: Response },
  status: number
): D => {
  assert.strictEqual(reply.response.status, status, JSON.stringify(reply.error))
  assert.isDefined(reply.data)
  return reply.data as D
}

/**
 * Polls until `done` holds, for up to 30 s of real time (within the test's 60); dies naming `what` and the last value.
 */
const waitFor = <A>(what: string, poll: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    // elapsed real time, not a date: performance.now() is monotonic
    const deadline = performance.now() + 30_000
    for (;;) {
      const value = yield* poll
      if (done(value)) return value
      if (performance.now() >= deadline) {
        return yield* Effect.dieMessage(
          `${what} did not happen within 30 s; last: ${JSON.stringify(value)?.slice(0, 2_000)}`
        )
      }
      yield* Effect.sleep("250 millis")
    }
  })

/**
 * Every day, all day: the test runs whenever CI does. A window ends at 23:59 at the latest, so a UTC
 * one is shut for the last minute of each UTC day; the timezone puts the hour now between 00:00 and
 * 11:59 local, half a day from the close.
 */
const always = {
  timezone: new Date().getUTCHours() < 12 ? "UTC" : "Etc/GMT+12",
  callWindowStart: "00:00",
  callWindowEnd: "23:59",
  callDays: [1, 2, 3, 4, 5, 6, 7]
}

describe("the generated client against a running platform", () => {
  layer(TestPlatform.layer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("the gateway serves the document the client and the lint are built from", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const served = yield* call(() => fetch(`${gateway}/openapi.json`).then((r) => r.json()))
        assert.deepStrictEqual(served, JSON.parse(JSON.stringify(platformDocument())))
      }))

    it.effect("sign up, key, agents and their pages, CSV upload, campaign, schedule, call log", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const origin = gateway.replace(/\/api\/v1$/, "")
        const anonymous = createPlatformClient(origin)

        // typed errors: the standard error body, by status
        const refused = yield* call(() => anonymous.GET("/api/v1/profile"))
        assert.strictEqual(refused.response.status, 401)
        assert.strictEqual(refused.error?.error.code, "MISSING_CREDENTIALS")

        // sign up (a dashboard session), then an API key and funds with that session
        const email = `client-${Date.now()}@example.com`
        const signup = expectData(
          yield* call(() =>
            anonymous.POST("/api/v1/auth/signup", {
              body: { email, password: "correct horse battery", companyName: "Client Co" }
            })
          ),
          201
        )
        assert.strictEqual(signup.user.email, email)
        const dashboard: PlatformClient = createPlatformClient(origin, { token: signup.token })
        const created = expectData(
          yield* call(() => dashboard.POST("/api/v1/api-keys", { body: { name: "client flow" } })),
          201
        )
        assert.match(created.key, /^aok_/)
        const topUp = expectData(
          yield* call(() =>
            dashboard.POST("/api/v1/wallet/top-ups", { body: { amount: 5000, idempotencyKey: "client-flow" } })
          ),
          201
        )
        assert.strictEqual(topUp.wallet.balance, 5000)

        // everything else with the key
        const platform = createPlatformClient(origin, { apiKey: created.key })
        const profile = expectData(yield* call(() => platform.GET("/api/v1/profile")), 200)
        assert.strictEqual(profile.tenant?.id, signup.tenant?.id)

        const personas = expectData(yield* call(() => platform.GET("/api/v1/prompts/personas")), 200)
        const personaId = personas.items[0]!.id
        const agentIds: Array<string> = []
        for (const name of ["Ada", "Grace", "Linus"]) {
          const agent = expectData(
            yield* call(() => platform.POST("/api/v1/agents", { body: { name, agent_persona_id: personaId } })),
            201
          )
          assert.strictEqual(agent.name, name)
          agentIds.push(agent.id)
        }

        // pagination: 3 agents in pages of 2
        const page1 = expectData(
          yield* call(() => platform.GET("/api/v1/agents", { params: { query: { page: 1, pageSize: 2 } } })),
          200
        )
        const page2 = expectData(
          yield* call(() => platform.GET("/api/v1/agents", { params: { query: { page: 2, pageSize: 2 } } })),
          200
        )
        assert.deepStrictEqual([page1.total, page1.page, page1.pageSize, page1.totalPages, page1.items.length], [
          3,
          1,
          2,
          2,
          2
        ])
        assert.deepStrictEqual([page2.total, page2.page, page2.items.length], [3, 2, 1])
        assert.sameMembers([...page1.items, ...page2.items].map((a) => a.id), agentIds)
        const tooBig = yield* call(() => platform.GET("/api/v1/agents", { params: { query: { pageSize: 101 } } }))
        assert.strictEqual(tooBig.response.status, 400)
        assert.strictEqual(tooBig.error?.error.code, "VALIDATION_FAILED")

        const number = expectData(
          yield* call(() =>
            platform.POST("/api/v1/voice-numbers", { body: { phoneNumber: "+16463005000", provider: "PROVIDER_A" } })
          ),
          201
        )

        // a contact list filled from a CSV file: multipart through openapi-fetch, a FormData body
        const list = expectData(
          yield* call(() => platform.POST("/api/v1/contact-lists", { body: { name: "Client flow" } })),
          201
        )
        const phones = ["+16462011000", "+16462022000"]
        const csv = new File(
          [`phone,name\n${phones[0]},Ada\n${phones[1]},Grace\nnot a phone,Nobody\n`],
          "contacts.csv",
          { type: "text/csv" }
        )
        let sentBody: unknown
        const imported = expectData(
          yield* call(() =>
            platform.POST("/api/v1/contact-lists/{id}/upload", {
              params: { path: { id: list.id } },
              body: { file: [csv] },
              bodySerializer: (body) => (sentBody = multipart(body))
            })
          ),
          200
        )
        assert.instanceOf(sentBody, FormData)
        assert.deepStrictEqual([imported.imported, imported.skipped], [2, 1])
        assert.deepStrictEqual(imported.invalidRows.map((r) => r.row), [4])
        const contacts = expectData(
          yield* call(() =>
            platform.GET("/api/v1/contact-lists/{listId}/contacts", { params: { path: { listId: list.id } } })
          ),
          200
        )
        assert.sameMembers(contacts.data.map((c) => c.phoneNumber), phones)

        // a voice campaign over that list, scheduled to start at once
        const campaign = expectData(
          yield* call(() =>
            platform.POST("/api/v1/campaigns", {
              body: {
                name: "Client flow",
                agentId: agentIds[0]!,
                voiceNumberId: number.id,
                contactListId: list.id,
                ...always
              }
            })
          ),
          201
        )
        assert.strictEqual(campaign.status, "DRAFT")
        const scheduled = expectData(
          yield* call(() =>
            platform.POST("/api/v1/campaigns/{id}/schedule", {
              params: { path: { id: campaign.id } },
              body: { scheduledAt: null }
            })
          ),
          200
        )
        assert.strictEqual(scheduled.status, "SCHEDULED")
        const done = yield* waitFor(
          "the campaign's completion",
          Effect.map(
            call(() => platform.GET("/api/v1/campaigns/{id}", { params: { path: { id: campaign.id } } })),
            (reply) => expectData(reply, 200)
          ),
          (c) => c.status === "COMPLETED"
        )
        assert.deepStrictEqual([done.totalContacts, done.dialedContacts, done.answeredContacts], [2, 2, 2])

        // the call log: the campaign's two calls, answered and ended
        const logs = expectData(
          yield* call(() => platform.GET("/api/v1/call-logs", { params: { query: { campaignId: campaign.id } } })),
          200
        )
        assert.strictEqual(logs.total, 2)
        assert.sameMembers(logs.items.map((l) => l.toNumber), phones)
        for (const log of logs.items) {
          assert.deepInclude(log, {
            status: "ENDED",
            outcome: "ANSWERED",
            campaignId: campaign.id,
            agentId: agentIds[0]
          })
        }
        const answered = expectData(
          yield* call(() =>
            platform.GET("/api/v1/call-logs", { params: { query: { status: "ANSWERED", pageSize: 1 } } })
          ),
          200
        )
        assert.deepStrictEqual([answered.total, answered.items.length, answered.totalPages], [2, 1, 2])
      }))
  })
})
