import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { CallSpec, SessionId } from "@voiceagent/domain/Calls"
import { type CampaignId, CreateCampaignRequest } from "@voiceagent/domain/Campaigns"
import type { AgentId, PersonaId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { CallSessionsRepo } from "@voiceagent/runner/CallRecords/CallSessionsRepo"
import { CampaignsRepo } from "@voiceagent/runner/Campaigns/CampaignsRepo"
import { ContactListsRepo } from "@voiceagent/runner/Contacts/ContactListsRepo"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"

// A stored row the schema does not describe (a column edited by hand, a migration that went wrong) is a
// defect naming the column, from the repositories a request reaches: never a wrong value handed on
// (docs/decisions/0032-row-decoding.md). Rows.test covers the helpers; this covers two repositories' rows.
const Repos = Layer.mergeAll(
  UsersRepo.Default,
  AgentsRepo.Default,
  VoiceNumbersRepo.Default,
  ContactListsRepo.Default,
  CampaignsRepo.Default,
  CallSessionsRepo.Default
).pipe(Layer.provideMerge(TestDatabase.layer))

const RECEPTIONIST = "4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId

const seed = Effect.gen(function*() {
  const { tenant } = yield* (yield* UsersRepo).create({
    email: `corrupt-${crypto.randomUUID()}@example.com`,
    passwordHash: "x",
    companyName: "Co"
  })
  const tenantId = tenant!.id as TenantId
  const agents = yield* AgentsRepo
  const agent = yield* agents.create(tenantId, Option.getOrThrow(yield* agents.findPersona(RECEPTIONIST)), "Agent")
  const number = yield* (yield* VoiceNumbersRepo).create(tenantId, {
    phoneNumber: "+14155550100",
    provider: "PROVIDER_A",
    label: null
  })
  const list = yield* (yield* ContactListsRepo).create(tenantId, "list", {})
  return { tenantId, agentId: agent.id as AgentId, voiceNumberId: number.id as VoiceNumberId, listId: list.id }
})

/** The defect's message, asserting the read died (not failed, not succeeded). */
const defectOf = <A, E>(exit: Exit.Exit<A, E>): string => {
  assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), "the read dies")
  return Cause.pretty((exit as Exit.Failure<A, E>).cause)
}

describe(`corrupt stored rows (${TestDatabase.backend()})`, () => {
  it.layer(Repos, { timeout: 120_000 })((it) => {
    it.effect("a campaign whose call_days holds a day name: reading it dies naming callDays", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const campaigns = yield* CampaignsRepo
        const seeded = yield* seed
        const request = Schema.decodeUnknownSync(CreateCampaignRequest)({
          name: "Corrupt",
          agentId: seeded.agentId,
          voiceNumberId: seeded.voiceNumberId,
          contactListId: seeded.listId
        })
        const created = yield* campaigns.create(seeded.tenantId, request, Date.now())
        const id = created.id as CampaignId
        // read back intact first: the failure below is the corruption's, not the query's
        assert.isTrue(Option.isSome(yield* campaigns.find(seeded.tenantId, id)))
        yield* sql`UPDATE campaigns SET call_days = '["Monday"]'::jsonb WHERE id = ${id}`
        const message = defectOf(yield* Effect.exit(campaigns.find(seeded.tenantId, id)))
        assert.include(message, "callDays")
        assert.include(message, "Monday")
      }))

    it.effect("a call whose transcript line has an unknown speaker: its log dies naming transcript and speaker", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const sessions = yield* CallSessionsRepo
        const seeded = yield* seed
        const id = uuidv7() as SessionId
        const spec: CallSpec = {
          tenantId: seeded.tenantId,
          jobId: "job",
          agentId: seeded.agentId,
          voiceNumberId: seeded.voiceNumberId,
          provider: "PROVIDER_A",
          fromNumber: "+14155550100",
          toNumber: "+14155550199",
          customerId: null,
          campaignId: null,
          campaignAttemptId: null,
          metadata: {},
          dialTimeoutSeconds: 30,
          maxDurationSeconds: 3600,
          concurrencyLimit: 10,
          currency: "USD",
          voicePerMinute: 10,
          billingIncrementSeconds: 60,
          reservationChunkSeconds: 60
        }
        assert.isTrue(yield* sessions.insert(id, spec, 60, Date.now()))
        assert.isTrue(Option.isSome(yield* sessions.findLog(seeded.tenantId, id)))
        yield* sql`
          UPDATE call_sessions SET transcript = '[{"speaker":"robot","text":"hello","at":0}]'::jsonb WHERE id = ${id}
        `
        const message = defectOf(yield* Effect.exit(sessions.findLog(seeded.tenantId, id)))
        assert.include(message, "transcript")
        assert.include(message, "speaker")
        assert.include(message, "robot")
      }))
  })
})
