/**
 * What the campaign API does, as a service: the HTTP handlers call it, and so do users' tests
 * through the testing kit. References are checked against the tenant; state changes go to the
 * campaign's entity, which owns the state machine.
 */
import { AgentInactive, AgentNotFound } from "@voiceagent/domain/Agents"
import { ValidationFailed } from "@voiceagent/domain/ApiError"
import * as CallWindow from "@voiceagent/domain/CallWindow"
import type { CampaignStatus } from "@voiceagent/domain/CampaignMachine"
import {
  type Campaign,
  CampaignActive,
  CampaignEntity,
  type CampaignId,
  CampaignNotFound,
  CampaignProgress,
  CampaignStateConflict,
  type CreateCampaignRequest,
  ScheduledCampaign,
  type UpdateCampaignRequest
} from "@voiceagent/domain/Campaigns"
import { ContactListNotFound } from "@voiceagent/domain/Contacts"
import type { AgentId, ContactListId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import type { PageRequest } from "@voiceagent/domain/Pagination"
import { VoiceNumberNotFound } from "@voiceagent/domain/VoiceNumbers"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import { ContactListsRepo } from "../Contacts/ContactListsRepo.js"
import { VoiceNumbersRepo } from "../VoiceNumbers/VoiceNumbersRepo.js"
import { CampaignsRepo } from "./CampaignsRepo.js"

/** Cluster transport failures are not the caller's fault: they surface as internal errors. */
const orDieTransport = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, { readonly _tag: "MailboxFull" | "AlreadyProcessingMessage" | "PersistenceError" }> =>
      e._tag === "MailboxFull" || e._tag === "AlreadyProcessingMessage" || e._tag === "PersistenceError",
    Effect.die
  )

export class Campaigns extends Effect.Service<Campaigns>()("Campaigns/Campaigns", {
  effect: Effect.gen(function*() {
    const repo = yield* CampaignsRepo
    const agents = yield* AgentsRepo
    const numbers = yield* VoiceNumbersRepo
    const lists = yield* ContactListsRepo
    const entity = yield* CampaignEntity.client

    /** Every reference must be the tenant's; the agent must be active. */
    const checkReferences = (tenantId: TenantId, refs: {
      readonly agentId?: AgentId | undefined
      readonly voiceNumberId?: VoiceNumberId | undefined
      readonly contactListId?: ContactListId | undefined
    }) =>
      Effect.gen(function*() {
        if (refs.agentId !== undefined) {
          const agent = yield* agents.find(tenantId, refs.agentId)
          if (Option.isNone(agent)) return yield* new AgentNotFound()
          if (!agent.value.agent.is_active) return yield* new AgentInactive()
        }
        if (refs.voiceNumberId !== undefined && Option.isNone(yield* numbers.find(tenantId, refs.voiceNumberId))) {
          return yield* new VoiceNumberNotFound()
        }
        if (refs.contactListId !== undefined && Option.isNone(yield* lists.find(tenantId, refs.contactListId))) {
          return yield* new ContactListNotFound()
        }
      })

    const get = (tenantId: TenantId, id: CampaignId) =>
      Effect.flatMap(
        repo.find(tenantId, id),
        Option.match({
          onNone: () => Effect.fail(new CampaignNotFound()),
          onSome: Effect.succeed
        })
      )

    const create = Effect.fn("Campaigns.create")(
      function*(tenantId: TenantId, input: CreateCampaignRequest) {
        yield* checkReferences(tenantId, input)
        return yield* repo.create(tenantId, input, yield* Clock.currentTimeMillis)
      }
    )

    const list = (tenantId: TenantId, status: CampaignStatus | undefined, page: PageRequest) =>
      repo.list(tenantId, status, page)

    const update = Effect.fn("Campaigns.update")(
      function*(tenantId: TenantId, id: CampaignId, patch: UpdateCampaignRequest) {
        yield* get(tenantId, id)
        yield* checkReferences(tenantId, patch)
        const updated = yield* repo.update(tenantId, id, patch, yield* Clock.currentTimeMillis)
        switch (updated._tag) {
          case "NotFound":
            return yield* new CampaignNotFound()
          case "NotDraft":
            return yield* new CampaignStateConflict({
              message: "Only a DRAFT campaign can be edited",
              details: { allowedFrom: ["DRAFT"] }
            })
          case "Invalid":
            return yield* ValidationFailed.fromIssues(updated.issues)
          case "Updated":
            return updated.campaign
        }
      }
    )

    /** Schedules dialing at `at` (now when null or past); the references must still be usable. */
    const schedule = Effect.fn("Campaigns.schedule")(
      function*(tenantId: TenantId, id: CampaignId, at: Date | null) {
        const campaign = yield* get(tenantId, id)
        yield* checkReferences(tenantId, campaign)
        yield* orDieTransport(entity(id).Schedule({ tenantId, at: at === null ? null : at.getTime() }))
        const after = yield* get(tenantId, id)
        return new ScheduledCampaign({
          id: after.id,
          name: after.name,
          status: "SCHEDULED",
          scheduledAt: after.scheduledAt!,
          updatedAt: after.updatedAt
        })
      }
    )

    const command = (name: "Pause" | "Resume" | "Abort") =>
      Effect.fn(`Campaigns.${name.toLowerCase()}`)(function*(tenantId: TenantId, id: CampaignId) {
        yield* get(tenantId, id)
        yield* orDieTransport(entity(id)[name]({ tenantId }))
        return yield* get(tenantId, id)
      })

    const remove = (tenantId: TenantId, id: CampaignId) =>
      Effect.flatMap(
        repo.remove(tenantId, id),
        (result): Effect.Effect<void, CampaignActive | CampaignNotFound> =>
          result === "deleted"
            ? Effect.void
            : result === "active"
            ? Effect.fail(new CampaignActive())
            : Effect.fail(new CampaignNotFound())
      )

    const attempts = (tenantId: TenantId, id: CampaignId, page: PageRequest) =>
      Effect.zipRight(get(tenantId, id), repo.attempts(tenantId, id, page))

    const progress = Effect.fn("Campaigns.progress")(
      function*(tenantId: TenantId, id: CampaignId) {
        const c: Campaign = yield* get(tenantId, id)
        const [contacts, attemptRows, work, now] = yield* Effect.all([
          repo.contactCounts(id),
          repo.attemptCounts(id),
          repo.workload(id),
          Clock.currentTimeMillis
        ])
        const ended = (outcome: string) =>
          attemptRows.filter((r) => r.status === "ENDED" && r.outcome === outcome).reduce((n, r) => n + r.n, 0)
        const window = { timezone: c.timezone, start: c.callWindowStart, end: c.callWindowEnd, days: c.callDays }
        const open = CallWindow.isOpen(window, now)
        const opens = open ? undefined : CallWindow.nextOpening(window, now)
        const waiting = c.status === "RUNNING" || c.status === "SCHEDULED"
        return new CampaignProgress({
          campaignId: c.id,
          status: c.status,
          statusReason: c.statusReason,
          totalContacts: c.totalContacts,
          dialedContacts: c.dialedContacts,
          answeredContacts: c.answeredContacts,
          contacts,
          attempts: {
            total: attemptRows.reduce((n, r) => n + r.n, 0),
            inProgress: attemptRows.filter((r) => r.status === "CLAIMED" || r.status === "DIALED").reduce(
              (n, r) => n + r.n,
              0
            ),
            answered: ended("ANSWERED"),
            unanswered: ended("UNANSWERED"),
            busy: ended("BUSY"),
            failed: ended("FAILED"),
            canceled: ended("CANCELED")
          },
          answerRate: c.dialedContacts === 0 ? null : c.answeredContacts / c.dialedContacts,
          callWindowOpen: open,
          nextWindowOpensAt: waiting && opens !== undefined ? new Date(opens) : null,
          nextAttemptAt: c.status === "RUNNING" || c.status === "PAUSED" ? work.nextDue : null
        })
      }
    )

    return {
      create,
      list,
      get,
      update,
      schedule,
      pause: command("Pause"),
      resume: command("Resume"),
      abort: command("Abort"),
      remove,
      attempts,
      progress,
      addDnc: repo.addDnc,
      listDnc: repo.listDnc,
      removeDnc: repo.removeDnc
    } as const
  }),
  dependencies: [CampaignsRepo.Default, AgentsRepo.Default, VoiceNumbersRepo.Default, ContactListsRepo.Default]
}) {}
