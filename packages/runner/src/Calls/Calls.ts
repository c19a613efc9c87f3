/**
 * What the calls API does, as a service: the HTTP handlers call it, and so can users' tests through
 * the testing kit. A placed call's references are checked against the tenant before its entity
 * starts (and holds the funds); an `Idempotency-Key` is claimed first, so a replay answers the first
 * request's response without looking at anything else.
 */
import { AgentInactive, AgentNotFound } from "@voiceagent/domain/Agents"
import { IdempotencyKeyReused } from "@voiceagent/domain/Billing"
import {
  type CallLogQuery,
  CallNotFound,
  CallSession,
  HangupResult,
  LiveCallEntity,
  type PlaceCallRequest,
  PlaceCallResponse,
  type SessionId
} from "@voiceagent/domain/Calls"
import { CallTransferRecord, TransferCallResult } from "@voiceagent/domain/CallTransfer"
import { RequestInProgress } from "@voiceagent/domain/CommsApi"
import { ContactNotFound } from "@voiceagent/domain/Contacts"
import type { TenantId } from "@voiceagent/domain/Ids"
import type { PageRequest } from "@voiceagent/domain/Pagination"
import { RecordingNotFound } from "@voiceagent/domain/Recordings"
import { VoiceNumberNotFound } from "@voiceagent/domain/VoiceNumbers"
import { type StartWebCallRequest, WebCallsUnavailable } from "@voiceagent/domain/WebCalls"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import { CallSessionsRepo } from "../CallRecords/CallSessionsRepo.js"
import { CallSpecs } from "../CallRecords/CallSpecs.js"
import { deliver } from "../Cluster/Deliver.js"
import { ContactsRepo } from "../Contacts/ContactsRepo.js"
import { Recordings } from "../Recordings/Recordings.js"
import { IdempotentRequests } from "../Sql/IdempotentRequests.js"
import * as Rows from "../Sql/Rows.js"
import { VoiceNumbersRepo } from "../VoiceNumbers/VoiceNumbersRepo.js"
import { Webhooks } from "../Webhooks/Webhooks.js"

/** The idempotency scope of placed calls (`idempotent_requests.scope`). */
const SCOPE = "voice-call"

const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
    ? `{${
      Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")
    }}`
    : JSON.stringify(value)

/** What a key's request is compared by: the request's fields, in a fixed order. */
const requestHash = (request: PlaceCallRequest) => crypto.createHash("sha256").update(canonical(request)).digest("hex")

export class Calls extends Effect.Service<Calls>()("Calls/Calls", {
  effect: Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const numbers = yield* VoiceNumbersRepo
    const contacts = yield* ContactsRepo
    const specs = yield* CallSpecs
    const sessions = yield* CallSessionsRepo
    const idempotency = yield* IdempotentRequests
    const webhooks = yield* Webhooks
    const recordings = yield* Recordings
    const entity = yield* LiveCallEntity.client

    /** Checks every reference against the tenant, then starts the call's entity (which holds the funds). */
    const start = (tenantId: TenantId, request: PlaceCallRequest) =>
      Effect.gen(function*() {
        // kept per process a few seconds (`ListenerCache`), as the call's entity reads its agent too
        const agent = yield* agents.findCached(tenantId, request.agentId)
        if (Option.isNone(agent)) return yield* new AgentNotFound()
        if (!agent.value.agent.is_active) return yield* new AgentInactive()
        const number = yield* numbers.findCached(tenantId, request.voiceNumberId)
        if (Option.isNone(number)) return yield* new VoiceNumberNotFound()
        if (
          request.customerId !== undefined && Option.isNone(yield* contacts.findForTenant(tenantId, request.customerId))
        ) {
          return yield* new ContactNotFound()
        }
        const sessionId = uuidv7() as SessionId
        const spec = yield* specs.make({
          tenantId,
          agentId: request.agentId,
          voiceNumber: number.value,
          toNumber: request.toNumber,
          customerId: request.customerId ?? null,
          campaignId: request.campaignId ?? null,
          campaignAttemptId: request.campaignAttemptId ?? null,
          metadata: request.metadata ?? {},
          record: request.record
        })
        yield* deliver(entity(sessionId).Start({ spec }))
        return new PlaceCallResponse({ sessionId, jobId: spec.jobId, status: "QUEUED" })
      })

    /**
     * Places an outbound call. With an `idempotencyKey` the key is claimed before anything is read: a
     * retry with the same request answers the first one's response (kept once it succeeded), another
     * request with the key is refused, and a request that fails gives the key back.
     */
    const place = Effect.fn("Calls.place")(
      function*(tenantId: TenantId, request: PlaceCallRequest, idempotencyKey?: string | undefined) {
        if (idempotencyKey === undefined) return yield* start(tenantId, request)
        const claim = yield* idempotency.claim(PlaceCallResponse, tenantId, SCOPE, idempotencyKey, requestHash(request))
        switch (claim._tag) {
          case "Replay":
            return claim.response
          case "Conflict":
            return yield* new IdempotencyKeyReused()
          case "InProgress":
            return yield* new RequestInProgress()
          case "New":
            return yield* start(tenantId, request).pipe(
              Effect.tap((response) =>
                idempotency.complete(PlaceCallResponse, tenantId, SCOPE, idempotencyKey, response)
              ),
              Effect.onError(() => idempotency.release(tenantId, SCOPE, idempotencyKey))
            )
        }
      }
    )

    /** The tenant's call logs, newest first, filtered as `GET /call-logs` is. */
    const list = Effect.fn("Calls.list")(
      function*(tenantId: TenantId, query: typeof CallLogQuery.Type, page: PageRequest) {
        return yield* sessions.list(tenantId, { ...query, includeTranscript: query.include === "transcript" }, page)
      }
    )

    /** The whole session (times, figures, events, transcript) and its recording's summary. */
    const get = Effect.fn("Calls.get")(function*(tenantId: TenantId, sessionId: SessionId) {
      const session = yield* sessions.findLog(tenantId, sessionId)
      if (Option.isNone(session)) return yield* new CallNotFound()
      const recording = yield* recordings.summary(tenantId, sessionId)
      // not a row: the decoded session and its decoded recording summary, put together
      return new CallSession({ ...session.value, recording: Option.getOrNull(recording) }, Rows.validated)
    })

    /** The tenant's session, or `CallNotFound`: what a command to a call is checked by. */
    const exists = (tenantId: TenantId, sessionId: SessionId) =>
      Effect.flatMap(
        sessions.findLog(tenantId, sessionId),
        (found) => Option.isNone(found) ? Effect.fail(new CallNotFound()) : Effect.void
      )

    /** Ends a live call (before the answer: CANCELED); an ended call answers its state. */
    const hangup = Effect.fn("Calls.hangup")(function*(tenantId: TenantId, sessionId: SessionId) {
      yield* exists(tenantId, sessionId)
      const reply = yield* entity(sessionId).Hangup({ requestId: uuidv7() }).pipe(Effect.orDie)
      return new HangupResult({ sessionId, ...reply })
    })

    /** A cold transfer of the live call to `toNumber`, asked for through the API. */
    const transfer = Effect.fn("Calls.transfer")(function*(tenantId: TenantId, sessionId: SessionId, toNumber: string) {
      yield* exists(tenantId, sessionId)
      const reply = yield* entity(sessionId).Transfer({ requestId: uuidv7(), toNumber, mode: "cold", source: "api" })
        .pipe(
          Effect.catchTags({
            AlreadyProcessingMessage: Effect.die,
            MailboxFull: Effect.die,
            PersistenceError: Effect.die
          })
        )
      return new TransferCallResult({
        sessionId,
        status: reply.status,
        outcome: reply.outcome,
        transfer: new CallTransferRecord({
          toNumber: reply.toNumber,
          mode: reply.mode,
          source: reply.source,
          at: new Date(reply.at)
        })
      })
    })

    /** The file of the call's recording (a WAV on this node's disk), or `RecordingNotFound`. */
    const recording = Effect.fn("Calls.recording")(function*(tenantId: TenantId, sessionId: SessionId) {
      const file = yield* recordings.file(tenantId, sessionId)
      if (Option.isNone(file)) return yield* new RecordingNotFound()
      return file.value
    })

    /** Deletes the call's recording (file and record), or `RecordingNotFound`. */
    const deleteRecording = Effect.fn("Calls.deleteRecording")(function*(tenantId: TenantId, sessionId: SessionId) {
      if (!(yield* recordings.remove(tenantId, sessionId))) return yield* new RecordingNotFound()
    })

    /** The tenant's call-result webhook deliveries, newest first. */
    const webhookDeliveries = Effect.fn("Calls.webhookDeliveries")(function*(tenantId: TenantId, page: PageRequest) {
      return yield* webhooks.list(tenantId, page)
    })

    /**
     * A web call: its entity started (holding its funds and its place under the concurrent-call limit)
     * and the token its browser's stream presents; `WebCallsUnavailable` when no media server would take
     * the stream.
     */
    const startWeb = Effect.fn("Calls.startWeb")(function*(tenantId: TenantId, request: StartWebCallRequest) {
      const agent = yield* agents.find(tenantId, request.agentId)
      if (Option.isNone(agent)) return yield* new AgentNotFound()
      if (!agent.value.agent.is_active) return yield* new AgentInactive()
      const sessionId = uuidv7() as SessionId
      const spec = yield* specs.makeWeb({
        tenantId,
        agentId: request.agentId,
        metadata: request.metadata ?? {},
        record: request.record
      })
      yield* deliver(entity(sessionId).Start({ spec }))
      const token = yield* entity(sessionId).WebStreamToken().pipe(Effect.orDie)
      if (token === null) return yield* new WebCallsUnavailable()
      return { sessionId, token: token.token, expiresAt: token.expiresAt }
    })

    return {
      place,
      startWeb,
      list,
      get,
      hangup,
      transfer,
      recording,
      deleteRecording,
      webhookDeliveries
    } as const
  }),
  dependencies: [
    AgentsRepo.Default,
    VoiceNumbersRepo.Default,
    ContactsRepo.Default,
    CallSpecs.Default,
    CallSessionsRepo.Default,
    IdempotentRequests.Default,
    Webhooks.Default
  ]
}) {}
