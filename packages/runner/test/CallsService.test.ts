/**
 * The calls use cases through the runner's `Calls` service (what `POST /channels/voice/call` and
 * the call-log routes call), on the testing kit: references checked before anything is written, the
 * Idempotency-Key's claim, replay and release, and a placed call read, listed and hung up.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { PlaceCallRequest, type SessionId } from "@voiceagent/domain/Calls"
import type { ContactId, TenantId } from "@voiceagent/domain/Ids"
import { StartWebCallRequest } from "@voiceagent/domain/WebCalls"
import { Calls } from "@voiceagent/runner/Calls/Calls"
import { ContactLists } from "@voiceagent/runner/Contacts/ContactLists"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect, Schema } from "effect"
import * as crypto from "node:crypto"

const Count = Schema.Struct({ n: Schema.Number })

/** What the tenant's calls wrote: session rows, kept idempotency keys, dials, funds held. */
const written = (tenantId: TenantId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const count = (rows: ReadonlyArray<unknown>) => Schema.decodeUnknownSync(Count)(rows[0]).n
    const sessions = count(yield* sql`SELECT count(*)::int AS n FROM call_sessions WHERE tenant_id = ${tenantId}`)
    const keys = count(yield* sql`SELECT count(*)::int AS n FROM idempotent_requests WHERE tenant_id = ${tenantId}`)
    const { reserved } = yield* TestKit.balance(tenantId)
    return { sessions, keys, reserved }
  }).pipe(Effect.orDie)

/** A tenant with funds, a voice number and a one-contact list; `to` is where its calls go. */
const setup = (to: string) =>
  Effect.gen(function*() {
    const t = yield* TestKit.tenant({ balance: 10_000 })
    const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
    const listId = yield* TestKit.contactList(t.tenantId, [to])
    const contacts = yield* (yield* ContactLists).contacts(t.tenantId, listId, {})
    const request = new PlaceCallRequest({ agentId: t.agentId, voiceNumberId, toNumber: to })
    return { ...t, voiceNumberId, customerId: contacts.data[0]!.id, request }
  })

const failureTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e._tag)

describe("the Calls service", () => {
  it.layer(TestKit.layer(), { timeout: 120_000 })((it) => {
    it.effect("refuses a call whose agent, number or contact is unknown or another tenant's, and writes nothing", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T12:00:00Z")
        const calls = yield* Calls
        const fx = yield* setup("+12125550030")
        const other = yield* setup("+12125550031")
        const before = yield* written(fx.tenantId)
        const attempt = (patch: Partial<typeof PlaceCallRequest.Type>, key?: string) =>
          failureTag(calls.place(fx.tenantId, new PlaceCallRequest({ ...fx.request, ...patch }), key))

        assert.strictEqual(yield* attempt({ agentId: other.agentId }), "AgentNotFound")
        assert.strictEqual(yield* attempt({ voiceNumberId: other.voiceNumberId }), "VoiceNumberNotFound")
        assert.strictEqual(yield* attempt({ customerId: other.customerId }), "ContactNotFound")
        assert.strictEqual(yield* attempt({ customerId: crypto.randomUUID() as ContactId }), "ContactNotFound")
        // with a key: the refusal gives the key back
        assert.strictEqual(yield* attempt({ agentId: other.agentId }, "k-unknown-agent"), "AgentNotFound")

        yield* TestKit.configureAgent(fx.tenantId, fx.agentId, { is_active: false })
        assert.strictEqual(yield* attempt({}), "AgentInactive")

        yield* TestKit.advance("10 seconds")
        assert.deepStrictEqual(yield* written(fx.tenantId), before)
        assert.deepStrictEqual(yield* written(fx.tenantId), { sessions: 0, keys: 0, reserved: 0 })
        assert.lengthOf(yield* (yield* TestKit.Dials).to("+12125550030"), 0)
      }))

    it.effect("a web call with another tenant's agent, or an inactive one, is refused and starts nothing", () =>
      Effect.gen(function*() {
        const calls = yield* Calls
        const fx = yield* setup("+12125550035")
        const other = yield* setup("+12125550036")
        const web = (agentId: typeof fx.agentId) =>
          failureTag(calls.startWeb(fx.tenantId, new StartWebCallRequest({ agentId })))
        assert.strictEqual(yield* web(other.agentId), "AgentNotFound")
        yield* TestKit.configureAgent(fx.tenantId, fx.agentId, { is_active: false })
        assert.strictEqual(yield* web(fx.agentId), "AgentInactive")
        assert.deepStrictEqual(yield* written(fx.tenantId), { sessions: 0, keys: 0, reserved: 0 })
      }))

    it.effect("a placed call is found by get and in the call log, and hang-up ends it; another tenant sees none", () =>
      Effect.gen(function*() {
        const calls = yield* Calls
        const fx = yield* setup("+12125550040")
        const other = yield* setup("+12125550041")
        const placed = yield* calls.place(
          fx.tenantId,
          new PlaceCallRequest({ ...fx.request, customerId: fx.customerId })
        )
        assert.strictEqual(placed.status, "QUEUED")

        const found = yield* calls.get(fx.tenantId, placed.sessionId)
        assert.deepInclude(found, { sessionId: placed.sessionId, jobId: placed.jobId, toNumber: "+12125550040" })
        assert.strictEqual(found.customerId, fx.customerId)
        const log = yield* calls.list(fx.tenantId, {}, { page: 1, pageSize: 10 })
        assert.deepStrictEqual(log.items.map((c) => c.sessionId), [placed.sessionId])
        assert.strictEqual(log.total, 1)

        yield* TestKit.advance("3 seconds")
        assert.deepStrictEqual((yield* (yield* TestKit.Dials).to("+12125550040")).length, 1)
        assert.strictEqual((yield* calls.get(fx.tenantId, placed.sessionId)).status, "IN_PROGRESS")

        // another tenant: not found, and its commands reach nothing
        assert.strictEqual(yield* failureTag(calls.get(other.tenantId, placed.sessionId)), "CallNotFound")
        assert.strictEqual(yield* failureTag(calls.hangup(other.tenantId, placed.sessionId)), "CallNotFound")
        assert.strictEqual(
          yield* failureTag(calls.transfer(other.tenantId, placed.sessionId, "+12125550099")),
          "CallNotFound"
        )
        assert.strictEqual(yield* failureTag(calls.recording(other.tenantId, placed.sessionId)), "RecordingNotFound")
        assert.strictEqual((yield* calls.list(other.tenantId, {}, { page: 1, pageSize: 10 })).total, 0)

        const hungUp = yield* calls.hangup(fx.tenantId, placed.sessionId)
        assert.strictEqual(hungUp.sessionId, placed.sessionId)
        yield* TestKit.advance("1 second")
        const ended = yield* calls.get(fx.tenantId, placed.sessionId)
        assert.deepInclude(ended, { status: "ENDED", outcome: "ANSWERED" })
        assert.strictEqual(yield* failureTag(calls.get(fx.tenantId, crypto.randomUUID() as SessionId)), "CallNotFound")
      }))

    it.effect("an Idempotency-Key: a retry answers the first response, another request with it is refused", () =>
      Effect.gen(function*() {
        const calls = yield* Calls
        const fx = yield* setup("+12125550050")
        const first = yield* calls.place(fx.tenantId, fx.request, "order-1")
        const again = yield* calls.place(fx.tenantId, new PlaceCallRequest({ ...fx.request }), "order-1")
        assert.deepStrictEqual(again, first)
        const changed = new PlaceCallRequest({ ...fx.request, toNumber: "+12125550051" })
        assert.strictEqual(yield* failureTag(calls.place(fx.tenantId, changed, "order-1")), "IdempotencyKeyReused")
        // the key is the tenant's: another tenant's request with it is new
        const other = yield* setup("+12125550052")
        const theirs = yield* calls.place(other.tenantId, other.request, "order-1")
        assert.notStrictEqual(theirs.sessionId, first.sessionId)

        const log = yield* calls.list(fx.tenantId, {}, { page: 1, pageSize: 10 })
        assert.deepStrictEqual(log.items.map((c) => c.sessionId), [first.sessionId])
        assert.strictEqual((yield* written(fx.tenantId)).keys, 1)

        // a refused request gives its key back: the same request, once it can be placed, is placed
        const later = new PlaceCallRequest({ ...fx.request, toNumber: "+12125550053" })
        yield* TestKit.configureAgent(fx.tenantId, fx.agentId, { is_active: false })
        assert.strictEqual(yield* failureTag(calls.place(fx.tenantId, later, "order-2")), "AgentInactive")
        assert.strictEqual((yield* written(fx.tenantId)).keys, 1)
        yield* TestKit.configureAgent(fx.tenantId, fx.agentId, { is_active: true })
        const placed = yield* calls.place(fx.tenantId, later, "order-2")
        assert.deepStrictEqual(yield* calls.place(fx.tenantId, later, "order-2"), placed)
        assert.strictEqual((yield* calls.list(fx.tenantId, {}, { page: 1, pageSize: 10 })).total, 2)
        yield* TestKit.advance("1 minute")
      }))
  })
})
