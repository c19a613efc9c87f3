import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { createKey, del, get, openAllDay, patch, post, request, signup, waitUntil } from "./Http.js"

// The campaign API over real sockets, on the real clock: the simulated carrier rings for 200 ms and
// numbers ending in 000 hang up at once, so a small campaign completes in seconds.

let unique = 0
const phone = (last4: string) => `+1646${200 + (++unique % 700)}${last4}`

const account = (topUp = 5000) =>
  Effect.gen(function*() {
    const { campaign, comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* signup(gateway)
    const { key } = yield* createKey(gateway, user.token)
    if (topUp > 0) {
      const top = yield* post(`${gateway}/wallet/top-ups`, {
        token: user.token,
        json: { amount: topUp, idempotencyKey: "seed" }
      })
      assert.strictEqual(top.status, 201, top.text)
    }
    const persona = (yield* get(`${comms}/prompts/personas`, { token: key })).body.items[0]
    const agent =
      (yield* post(`${comms}/agents`, { token: key, json: { name: "Dialer", agent_persona_id: persona.id } })).body
    const number = (yield* post(`${comms}/voice-numbers`, {
      token: key,
      json: { phoneNumber: phone("5000"), provider: "PROVIDER_A" }
    })).body
    const list = (yield* post(`${campaign}/contact-lists`, { token: key, json: { name: `list ${++unique}` } })).body
    return { ...user, key, agentId: agent.id as string, voiceNumberId: number.id as string, listId: list.id as string }
  })

const addContacts = (key: string, listId: string, phones: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { campaign } = yield* TestPlatform.TestPlatformUrls
    const reply = yield* post(`${campaign}/contact-lists/${listId}/contacts/bulk`, {
      token: key,
      json: { contacts: phones.map((phoneNumber) => ({ phoneNumber })) }
    })
    assert.strictEqual(reply.status, 200, reply.text)
  })

/** Every day, all day: the tests run whenever CI does. */
const always = openAllDay()

const waitFor = (url: string, key: string, done: (body: any) => boolean, what: string) =>
  waitUntil(Effect.map(get(url, { token: key }), (reply) => reply.body), done, what)

describe("voice campaigns over HTTP", () => {
  layer(TestPlatform.layer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("create: defaults, full resource, every bound a 400 with nothing written; references checked", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const a = yield* account(0)
        const base = {
          name: "Q4 renewals",
          agentId: a.agentId,
          voiceNumberId: a.voiceNumberId,
          contactListId: a.listId
        }
        const created = yield* post(`${campaign}/campaigns`, { token: a.key, json: base })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepInclude(created.body, {
          ...base,
          tenantId: a.tenantId,
          description: "",
          status: "DRAFT",
          statusReason: null,
          totalContacts: 0,
          dialedContacts: 0,
          answeredContacts: 0,
          dialTimeout: 30,
          maxAttempts: 1,
          redialDelayMin: 60,
          maxConcurrentCalls: 5,
          scheduledAt: null,
          startedAt: null,
          completedAt: null,
          timezone: "UTC",
          callWindowStart: "09:00",
          callWindowEnd: "18:00",
          recipientCallingHours: { enabled: false, start: "08:00", end: "21:00" },
          metadata: {}
        })
        assert.deepStrictEqual(created.body.callDays, [1, 2, 3, 4, 5])

        const bad: Array<[Record<string, unknown>, string]> = [
          [{ name: "" }, "name"],
          [{ name: "x".repeat(121) }, "name"],
          [{ dialTimeout: 5 }, "dialTimeout"],
          [{ dialTimeout: 121 }, "dialTimeout"],
          [{ maxAttempts: 0 }, "maxAttempts"],
          [{ maxAttempts: 11 }, "maxAttempts"],
          [{ maxAttempts: 1.5 }, "maxAttempts"],
          [{ redialDelayMin: 0 }, "redialDelayMin"],
          [{ maxConcurrentCalls: 101 }, "maxConcurrentCalls"],
          [{ timezone: "Mars/Olympus" }, "timezone"],
          [{ callWindowStart: "9:00" }, "callWindowStart"],
          [{ callWindowStart: "24:00" }, "callWindowStart"],
          [{ callWindowStart: "18:00", callWindowEnd: "09:00" }, "callWindowEnd"],
          [{ callDays: [] }, "callDays"],
          [{ callDays: [0] }, "callDays"],
          [{ callDays: [1, 1] }, "callDays"],
          [{ agentId: "not-a-uuid" }, "agentId"],
          [{ recipientCallingHours: true }, "recipientCallingHours"],
          [{ recipientCallingHours: {} }, "recipientCallingHours.enabled"],
          [{ recipientCallingHours: { enabled: "yes" } }, "recipientCallingHours.enabled"],
          [{ recipientCallingHours: { enabled: true, start: "8:00" } }, "recipientCallingHours.start"],
          [{ recipientCallingHours: { enabled: true, end: "24:00" } }, "recipientCallingHours.end"],
          [{ recipientCallingHours: { enabled: true, start: "21:00", end: "08:00" } }, "recipientCallingHours.end"]
        ]
        for (const [override, field] of bad) {
          const reply = yield* post(`${campaign}/campaigns`, { token: a.key, json: { ...base, ...override } })
          assert.strictEqual(reply.status, 400, `${JSON.stringify(override)} → ${reply.text}`)
          assert.strictEqual(reply.body.error.code, "VALIDATION_FAILED")
          assert.isTrue(JSON.stringify(reply.body.error.details).includes(field), `${field} named in ${reply.text}`)
        }
        const other = yield* account(0)
        for (
          const [override, code] of [
            [{ agentId: other.agentId }, "AGENT_NOT_FOUND"],
            [{ voiceNumberId: other.voiceNumberId }, "VOICE_NUMBER_NOT_FOUND"],
            [{ contactListId: other.listId }, "CONTACT_LIST_NOT_FOUND"]
          ] as const
        ) {
          const reply = yield* post(`${campaign}/campaigns`, { token: a.key, json: { ...base, ...override } })
          assert.deepStrictEqual([reply.status, reply.body.error.code], [404, code])
        }
        yield* patch(`${(yield* TestPlatform.TestPlatformUrls).comms}/agents/${a.agentId}`, {
          token: a.key,
          json: { is_active: false }
        })
        const inactive = yield* post(`${campaign}/campaigns`, { token: a.key, json: base })
        assert.deepStrictEqual([inactive.status, inactive.body.error.code], [409, "AGENT_INACTIVE"])

        const list = yield* get(`${campaign}/campaigns`, { token: a.key })
        assert.deepStrictEqual(
          [list.body.total, list.body.pageSize, list.body.items.length],
          [1, 15, 1],
          "nothing else was written"
        )
        const tooBig = yield* get(`${campaign}/campaigns?pageSize=101`, { token: a.key })
        assert.strictEqual(tooBig.status, 400)
        const badStatus = yield* get(`${campaign}/campaigns?status=DONE`, { token: a.key })
        assert.strictEqual(badStatus.status, 400)
        const foreign = yield* get(`${campaign}/campaigns/${created.body.id}`, { token: other.key })
        assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "CAMPAIGN_NOT_FOUND"])
      }))

    it.effect("list newest first with a status filter; PATCH only in DRAFT; schedule rules", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const a = yield* account(0)
        const base = { agentId: a.agentId, voiceNumberId: a.voiceNumberId, contactListId: a.listId }
        const ids: Array<string> = []
        for (const name of ["first", "second", "third"]) {
          ids.push((yield* post(`${campaign}/campaigns`, { token: a.key, json: { ...base, name } })).body.id)
        }
        const page = yield* get(`${campaign}/campaigns?pageSize=2`, { token: a.key })
        assert.deepStrictEqual(page.body.items.map((c: any) => c.name), ["third", "second"])
        assert.deepInclude(page.body, { total: 3, page: 1, pageSize: 2, totalPages: 2 })

        const edited = yield* patch(`${campaign}/campaigns/${ids[0]}`, {
          token: a.key,
          json: { maxAttempts: 3, metadata: { crm: "7" } }
        })
        assert.deepStrictEqual([edited.status, edited.body.maxAttempts, edited.body.metadata], [200, 3, { crm: "7" }])
        const future = new Date(Date.now() + 3_600_000).toISOString()
        const scheduled = yield* post(`${campaign}/campaigns/${ids[0]}/schedule`, {
          token: a.key,
          json: { scheduledAt: future }
        })
        assert.strictEqual(scheduled.status, 200, scheduled.text)
        assert.deepStrictEqual(Object.keys(scheduled.body).sort(), ["id", "name", "scheduledAt", "status", "updatedAt"])
        assert.deepStrictEqual([scheduled.body.status, scheduled.body.scheduledAt], ["SCHEDULED", future])
        const later = new Date(Date.now() + 7_200_000).toISOString()
        const moved = yield* post(`${campaign}/campaigns/${ids[0]}/schedule`, {
          token: a.key,
          json: { scheduledAt: later }
        })
        assert.strictEqual(moved.body.scheduledAt, later, "a SCHEDULED campaign can be moved")
        const locked = yield* patch(`${campaign}/campaigns/${ids[0]}`, { token: a.key, json: { name: "renamed" } })
        assert.deepStrictEqual([locked.status, locked.body.error.code], [409, "CAMPAIGN_STATE_CONFLICT"])
        const badBody = yield* post(`${campaign}/campaigns/${ids[1]}/schedule`, {
          token: a.key,
          json: { scheduledAt: "tomorrow" }
        })
        assert.deepStrictEqual([badBody.status, badBody.body.error.code], [400, "VALIDATION_FAILED"])
        const notJson = yield* request("POST", `${campaign}/campaigns/${ids[1]}/schedule`, {
          token: a.key,
          body: "{",
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(notJson.status, 400)
        assert.strictEqual(
          (yield* get(`${campaign}/campaigns/${ids[1]}`, { token: a.key })).body.status,
          "DRAFT",
          "nothing written"
        )

        const scheduledOnly = yield* get(`${campaign}/campaigns?status=SCHEDULED`, { token: a.key })
        assert.deepStrictEqual(scheduledOnly.body.items.map((c: any) => c.id), [ids[0]])
        // delete: refused while scheduled, allowed after abort
        const refused = yield* del(`${campaign}/campaigns/${ids[0]}`, { token: a.key })
        assert.deepStrictEqual([refused.status, refused.body.error.code], [409, "CAMPAIGN_ACTIVE"])
        assert.match(refused.body.error.message, /abort/)
        const pauseScheduled = yield* post(`${campaign}/campaigns/${ids[0]}/pause`, { token: a.key })
        assert.deepStrictEqual([pauseScheduled.status, pauseScheduled.body.error.code], [
          409,
          "CAMPAIGN_STATE_CONFLICT"
        ])
        const aborted = yield* post(`${campaign}/campaigns/${ids[0]}/abort`, { token: a.key })
        assert.deepStrictEqual([aborted.status, aborted.body.status, aborted.body.statusReason], [
          200,
          "FAILED",
          "ABORTED"
        ])
        const again = yield* post(`${campaign}/campaigns/${ids[0]}/schedule`, { token: a.key })
        assert.deepStrictEqual([again.status, again.body.error.code], [409, "CAMPAIGN_STATE_CONFLICT"])
        const gone = yield* del(`${campaign}/campaigns/${ids[0]}`, { token: a.key })
        assert.deepStrictEqual([gone.status, gone.text], [204, ""])
        assert.strictEqual((yield* get(`${campaign}/campaigns/${ids[0]}`, { token: a.key })).status, 404)
        assert.strictEqual(
          (yield* del(`${campaign}/campaigns/${ids[1]}`, { token: a.key })).status,
          204,
          "a DRAFT is deletable"
        )
      }))

    it.effect(
      "recipientCallingHours: off unless asked for, shown in GET, PATCHed in DRAFT against what is stored; a bad " +
        "patch is a 400 and nothing is written",
      () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const a = yield* account(0)
          const base = {
            name: "Local hours",
            agentId: a.agentId,
            voiceNumberId: a.voiceNumberId,
            contactListId: a.listId
          }
          const on = yield* post(`${campaign}/campaigns`, {
            token: a.key,
            json: { ...base, recipientCallingHours: { enabled: true, end: "20:00" } }
          })
          assert.strictEqual(on.status, 201, on.text)
          assert.deepStrictEqual(on.body.recipientCallingHours, { enabled: true, start: "08:00", end: "20:00" })
          const id = on.body.id as string
          const url = `${campaign}/campaigns/${id}`
          assert.deepStrictEqual((yield* get(url, { token: a.key })).body.recipientCallingHours, {
            enabled: true,
            start: "08:00",
            end: "20:00"
          })

          const later = yield* patch(url, {
            token: a.key,
            json: { recipientCallingHours: { enabled: true, start: "09:00" } }
          })
          assert.deepStrictEqual([later.status, later.body.recipientCallingHours], [200, {
            enabled: true,
            start: "09:00",
            end: "20:00"
          }], "end kept")
          const before = (yield* get(url, { token: a.key })).body
          for (
            const [json, field] of [
              // past the stored end
              [{ recipientCallingHours: { enabled: true, start: "20:30" } }, "recipientCallingHours.start"],
              [{ recipientCallingHours: { enabled: true, end: "09:00" } }, "recipientCallingHours.end"],
              [{ callWindowEnd: "08:00" }, "callWindowEnd"], // before the stored 09:00 start
              [{ recipientCallingHours: { start: "10:00" } }, "recipientCallingHours.enabled"],
              [{ recipientCallingHours: null }, "recipientCallingHours"]
            ] as const
          ) {
            const reply = yield* patch(url, { token: a.key, json })
            assert.deepStrictEqual(
              [reply.status, reply.body.error?.code],
              [400, "VALIDATION_FAILED"],
              `${JSON.stringify(json)} → ${reply.text}`
            )
            assert.isTrue(JSON.stringify(reply.body.error.details).includes(field), `${field} named in ${reply.text}`)
          }
          assert.deepStrictEqual((yield* get(url, { token: a.key })).body, before, "nothing written")

          const off = yield* patch(url, { token: a.key, json: { recipientCallingHours: { enabled: false } } })
          assert.deepStrictEqual(
            off.body.recipientCallingHours,
            { enabled: false, start: "09:00", end: "20:00" },
            "hours kept for next time"
          )
          const listed = yield* get(`${campaign}/campaigns`, { token: a.key })
          assert.deepStrictEqual(listed.body.items.map((c: any) => c.recipientCallingHours), [{
            enabled: false,
            start: "09:00",
            end: "20:00"
          }])

          yield* post(`${url}/schedule`, {
            token: a.key,
            json: { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() }
          })
          const locked = yield* patch(url, { token: a.key, json: { recipientCallingHours: { enabled: true } } })
          assert.deepStrictEqual([locked.status, locked.body.error.code], [409, "CAMPAIGN_STATE_CONFLICT"])
          yield* post(`${url}/abort`, { token: a.key })
        })
    )

    it.effect(
      "a running campaign: DNC skip, a retry pending, attempts and progress; its list is held until it is aborted",
      () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const a = yield* account()
          const answered = [phone("1000"), phone("2000")]
          const busy = phone("9001")
          const blocked = phone("3000")
          yield* addContacts(a.key, a.listId, [...answered, busy, blocked])
          const dnc = yield* post(`${campaign}/dnc`, { token: a.key, json: { phoneNumber: blocked, reason: "asked" } })
          assert.deepStrictEqual([dnc.status, dnc.body.phoneNumber, dnc.body.reason], [201, blocked, "asked"])
          const badDnc = yield* post(`${campaign}/dnc`, { token: a.key, json: { phoneNumber: "12345" } })
          assert.strictEqual(badDnc.status, 400)

          const c = (yield* post(`${campaign}/campaigns`, {
            token: a.key,
            json: {
              name: "Run",
              agentId: a.agentId,
              voiceNumberId: a.voiceNumberId,
              contactListId: a.listId,
              maxAttempts: 2,
              redialDelayMin: 1,
              ...always
            }
          })).body
          const scheduled = yield* post(`${campaign}/campaigns/${c.id}/schedule`, { token: a.key })
          assert.strictEqual(scheduled.status, 200, scheduled.text)
          const running = yield* waitFor(
            `${campaign}/campaigns/${c.id}`,
            a.key,
            (b) => b.status === "RUNNING",
            "dialing"
          )
          assert.strictEqual(running.totalContacts, 4)
          const inUse = yield* del(`${campaign}/contact-lists/${a.listId}`, { token: a.key })
          assert.deepStrictEqual([inUse.status, inUse.body.error.code], [409, "CONTACT_LIST_IN_USE"])
          const busyDelete = yield* del(`${campaign}/campaigns/${c.id}`, { token: a.key })
          assert.deepStrictEqual([busyDelete.status, busyDelete.body.error.code], [409, "CAMPAIGN_ACTIVE"])

          // the busy contact is redialed a minute after its first attempt ended
          const progress = yield* waitFor(
            `${campaign}/campaigns/${c.id}/progress`,
            a.key,
            (b) => b.attempts.busy === 1 && b.contacts.pending === 1,
            "the first busy attempt"
          )
          assert.isNotNull(progress.nextAttemptAt)
          assert.isAbove(Date.parse(progress.nextAttemptAt), Date.now() + 20_000)
          assert.deepInclude(progress.contacts, { answered: 2, skipped: 1, pending: 1 })
          assert.strictEqual(progress.answerRate, 2 / 3)

          const attempts = yield* get(`${campaign}/campaigns/${c.id}/attempts`, { token: a.key })
          const byPhone = new Map<string, Array<any>>()
          for (const at of attempts.body.items) {
            byPhone.set(at.phoneNumber, [...(byPhone.get(at.phoneNumber) ?? []), at])
          }
          assert.deepStrictEqual(byPhone.get(blocked)!.map((x) => [x.status, x.skipReason, x.sessionId]), [[
            "SKIPPED",
            "DO_NOT_CALL",
            null
          ]])
          for (const p of answered) {
            assert.deepStrictEqual(byPhone.get(p)!.map((x) => [x.attemptNumber, x.status, x.outcome]), [[
              1,
              "ENDED",
              "ANSWERED"
            ]])
          }
          assert.deepStrictEqual(byPhone.get(busy)!.map((x) => [x.attemptNumber, x.outcome]), [[1, "BUSY"]])
          const call = yield* get(
            `${(yield* TestPlatform.TestPlatformUrls).comms}/calls/${byPhone.get(answered[0]!)![0].sessionId}`,
            { token: a.key }
          )
          assert.deepInclude(call.body, {
            campaignId: c.id,
            campaignAttemptId: byPhone.get(answered[0]!)![0].id,
            status: "ENDED"
          })

          const other = yield* account(0)
          assert.strictEqual((yield* get(`${campaign}/campaigns/${c.id}/attempts`, { token: other.key })).status, 404)
          assert.strictEqual((yield* get(`${campaign}/campaigns/${c.id}/progress`, { token: other.key })).status, 404)

          const viaGateway = yield* get(`${(yield* TestPlatform.TestPlatformUrls).gateway}/dnc`, { token: a.key })
          assert.deepStrictEqual([viaGateway.status, viaGateway.body.total], [200, 1], "the gateway routes /dnc")
          const list = yield* get(`${campaign}/dnc`, { token: a.key })
          assert.deepStrictEqual(list.body.items.map((d: any) => d.phoneNumber), [blocked])
          assert.strictEqual(
            (yield* del(`${campaign}/dnc/${encodeURIComponent(blocked)}`, { token: a.key })).status,
            204
          )
          assert.strictEqual(
            (yield* del(`${campaign}/dnc/${encodeURIComponent(blocked)}`, { token: a.key })).status,
            404
          )

          // abort: the pending retry is cancelled, the list is released, the campaign can go
          const aborted = yield* post(`${campaign}/campaigns/${c.id}/abort`, { token: a.key })
          assert.deepStrictEqual([
            aborted.body.status,
            aborted.body.statusReason,
            aborted.body.dialedContacts,
            aborted.body.answeredContacts
          ], [
            "FAILED",
            "ABORTED",
            3,
            2
          ])
          const after = (yield* get(`${campaign}/campaigns/${c.id}/progress`, { token: a.key })).body
          assert.deepInclude(after.contacts, { answered: 2, skipped: 1, pending: 0, cancelled: 1 })
          assert.isNull(after.nextAttemptAt)
          assert.strictEqual((yield* del(`${campaign}/contact-lists/${a.listId}`, { token: a.key })).status, 204)
          assert.strictEqual((yield* del(`${campaign}/campaigns/${c.id}`, { token: a.key })).status, 204)
          assert.strictEqual((yield* get(`${campaign}/campaigns/${c.id}/attempts`, { token: a.key })).status, 404)
        })
    )
  })
})
