/**
 * The testing kit for users' calling workflows: the whole runtime (embedded cluster, entities,
 * campaign dialer, wallet, webhooks) on a fresh embedded database, with the simulated carrier, all
 * timed by Effect's `Clock`. Under `it.effect` (or `it.layer`) that clock is the `TestClock`, and
 * {@link advance} moves virtual days in seconds of real time.
 *
 * ```ts
 * import { it } from "@effect/vitest"
 * import * as TestKit from "@voiceagent/runner/Testing/TestKit"
 *
 * it.layer(TestKit.layer())((it) => {
 *   it.effect("dials at 09:00 New York time", () =>
 *     Effect.gen(function*() {
 *       yield* TestKit.startAt("2026-11-23T00:00:00Z")
 *       const { tenantId, agentId } = yield* TestKit.tenant({ balance: 10_000 })
 *       ...
 *     }))
 * })
 * ```
 *
 * See docs/testing.md ("Testing your workflows") for the full example.
 *
 * One kit layer per `describe`: vitest builds the layers of one block together, and two runtimes
 * built at once in one process collide on the cluster's singleton registry.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { applyAgentPatch, UpdateAgentRequest } from "@voiceagent/domain/Agents"
import { LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { CampaignId, CreateCampaignRequest } from "@voiceagent/domain/Campaigns"
import type { AgentId, ContactListId, PersonaId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import {
  CreateChatAppCampaignRequest,
  CreateSmsCampaignRequest,
  type MessageChannel
} from "@voiceagent/domain/Messaging"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as crypto from "node:crypto"
import { Agents } from "../Agents/Agents.js"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import { stateOf } from "../Agents/AgentsRepo.js"
import type { CallEndedEvent } from "../CallRecords/CallEnded.js"
import { CallSessionsRepo } from "../CallRecords/CallSessionsRepo.js"
import { CallSpecs } from "../CallRecords/CallSpecs.js"
import { Calls } from "../Calls/Calls.js"
import { Campaigns } from "../Campaigns/Campaigns.js"
import { CampaignsRepo } from "../Campaigns/CampaignsRepo.js"
import * as Cluster from "../Cluster/Cluster.js"
import { deliver } from "../Cluster/Deliver.js"
import { ContactLists } from "../Contacts/ContactLists.js"
import { ContactListsRepo } from "../Contacts/ContactListsRepo.js"
import { ContactsRepo } from "../Contacts/ContactsRepo.js"
import { KnowledgeBases } from "../Knowledge/KnowledgeBases.js"
import { defaultMessagingOptions, MessageOutbox } from "../Messaging/MessageOutbox.js"
import { MessagingCampaigns } from "../Messaging/MessagingCampaigns.js"
import { defaultRuntimeOptions, RuntimeLive, type RuntimeOptions } from "../Runtime.js"
import { PlatformSettings, type PlatformSettingsShape } from "../Settings.js"
import { UsersRepo } from "../Users/UsersRepo.js"
import { type CallerStep, scriptToMetadata } from "../Voice/SimulatedCaller.js"
import { VoiceNumbersRepo } from "../VoiceNumbers/VoiceNumbersRepo.js"
import * as PostgresActivity from "./PostgresActivity.js"
import * as Settle from "./Settle.js"
import * as TestDatabase from "./TestDatabase.js"
import * as TestRuntime from "./TestRuntime.js"
import * as VirtualClock from "./VirtualClock.js"

/** A dial the simulated carrier accepted. */
export interface Dial {
  readonly sessionId: string
  readonly to: string
  /** Epoch ms, on the test's clock. */
  readonly at: number
}

/** Every dial the simulated carrier accepted, in order. */
export class Dials extends Context.Tag("Testing/Dials")<Dials, {
  readonly all: Effect.Effect<ReadonlyArray<Dial>>
  readonly to: (number: string) => Effect.Effect<ReadonlyArray<Dial>>
}>() {}

export interface TestKitOptions {
  /** Simulated ring time (default 2 s). */
  readonly ringMillis?: number
  /** Dials per second per voice number (default 1, like most carriers). */
  readonly callsPerSecondPerNumber?: number
  readonly settings?: PlatformSettingsShape
  readonly runtime?: Partial<RuntimeOptions>
}

/**
 * The runtime's periodic work (cluster storage polls, supervisors, the webhook dispatcher's idle
 * poll) is spaced out here: every timer costs a wake-up when {@link advance} walks virtual days,
 * and in one process nothing needs polling to be found. (The cluster's per-entity-type metrics
 * loops sleep in real time whatever the options: see `Cluster`.)
 */
const quietCluster: Cluster.ClusterOptions = {
  ...Cluster.defaultClusterOptions,
  shardsPerGroup: 8,
  entityMessagePollInterval: "1 hour",
  // alone, the runner has nobody to hand its shards to nor to check on: its lock refresh (and the
  // assignment refresh that follows it) and its runners' health check need not wake the clock
  // every few virtual seconds
  shardLockRefreshInterval: "1 hour",
  shardLockExpiration: "3 hours",
  runnerHealthCheckInterval: "1 hour"
}

export const layer = (options: TestKitOptions = {}) => {
  const dials: Array<Dial> = []
  const runtime: RuntimeOptions = {
    ...defaultRuntimeOptions,
    simulator: { ringMillis: options.ringMillis ?? 2000, onDial: (dial) => void dials.push(dial) },
    webhooks: { pollInterval: "1 second", maxIdleInterval: "1 hour", batchSize: 50 },
    supervisorInterval: "1 hour",
    dialer: { idlePoll: "1 hour", tenantBusyBackoff: "5 seconds", errorBackoff: "5 seconds" },
    callsPerSecondPerNumber: options.callsPerSecondPerNumber ?? 1,
    messaging: { ...defaultMessagingOptions, maxIdleInterval: "1 hour" },
    ...options.runtime
  }
  return Layer.mergeAll(
    Campaigns.Default,
    Agents.Default,
    Calls.Default,
    ContactLists.Default,
    KnowledgeBases.Default,
    MessagingCampaigns.Default,
    Layer.succeed(Dials, {
      all: Effect.sync(() => [...dials]),
      to: (number) => Effect.sync(() => dials.filter((d) => d.to === number))
    })
  ).pipe(
    Layer.provideMerge(RuntimeLive(runtime)),
    Layer.provideMerge(Cluster.embedded(quietCluster)),
    Layer.provideMerge(PlatformSettings.layer(options.settings)),
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provideMerge(TestDatabase.layer),
    Layer.provideMerge(Layer.scopedDiscard(PostgresActivity.trackNodePostgres)),
    // first, so everything above (and the tests of an `it.layer`) runs on it
    Layer.provideMerge(virtualClock)
  )
}

// ---------------------------------------------------------------------------
// Moving time
// ---------------------------------------------------------------------------

/**
 * Waits (in real time) until the runtime is quiet: no SQL running, no off-clock work, the clock
 * untouched over a few turns of the event loop (see `Testing/Settle`).
 */
export const settle: Effect.Effect<void> = Settle.settle

/**
 * Moves the clock forward by `duration`, instant by instant: the sleeps due at the next pending
 * instant wake together, and what they start (SQL included) finishes before time moves again. A
 * timer that fires at 09:00 runs at 09:00, and what it schedules next is measured from there.
 *
 * On the kit's {@link VirtualClock.VirtualClock} (what {@link layer} installs) each step costs
 * O(log n) in the pending sleeps plus the {@link settle} that follows it. On Effect's own
 * `TestClock` it steps with `TestClock.adjust` from one pending deadline to the next, which is
 * correct but waits on the test's fibers after every sleep: slower over long spans.
 */
export const advance = (duration: Duration.DurationInput): Effect.Effect<void> =>
  Effect.gen(function*() {
    const target = (yield* Clock.currentTimeMillis) + Duration.toMillis(duration)
    const virtual = yield* VirtualClock.current
    if (virtual !== undefined) return yield* virtual.walkTo(target)
    for (;;) {
      yield* settle
      const now = yield* Clock.currentTimeMillis
      const next = Chunk.reduce(yield* TestClock.sleeps(), Infinity, Math.min)
      if (next > target) {
        if (target > now) yield* TestClock.adjust(target - now)
        break
      }
      yield* TestClock.adjust(Math.max(0, next - now))
    }
    yield* settle
  })

/**
 * The kit's virtual clock as a layer, for a runtime assembled without {@link layer} (the server's
 * `TestPlatform`): provide it under the runtime's layer, `Layer.provideMerge(TestKit.virtualClock)`,
 * so the runtime and the tests run on it. It replaces a test clock only.
 */
export const virtualClock: Layer.Layer<never> = VirtualClock.layer(Settle.settle)

/**
 * Runs `effect` on a fresh {@link VirtualClock.VirtualClock} starting at the current instant, for a
 * test without the kit's layer (a plain `it.effect`) whose timers are dense: {@link advance} then walks
 * them at the kit's speed instead of stepping Effect's `TestClock`. Whatever `effect` forks runs on it.
 */
export const onVirtualClock = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.withClock(effect, new VirtualClock.VirtualClock(now, settle)))

/**
 * Runs `check` (assertions included) until it passes, waiting in real time between tries and never
 * moving the clock: after a clock move the runtime may still be doing real I/O (SQL, a provider's
 * HTTP answer) that the clock does not see. It returns as soon as the check passes, so the limit
 * (`seconds` of real time, 30 unless given) is generous: a loaded machine must never reach it. Then it
 * gives up with the last failure, its message saying how long the check was retried.
 */
export const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, seconds = 30): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    // elapsed real time, not a date: performance.now() is monotonic
    const deadline = performance.now() + seconds * 1000
    for (let tries = 1;; tries++) {
      const exit = yield* Effect.exit(check)
      if (exit._tag === "Success") return exit.value
      if (performance.now() >= deadline) {
        for (const error of [...Cause.defects(exit.cause), ...Cause.failures(exit.cause)]) {
          if (error instanceof Error) {
            error.message = `TestKit.eventually: still failing after ${seconds} s (${tries} tries): ${error.message}`
          }
        }
        return yield* exit
      }
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
  })

/** Advances until `until` (an ISO instant or epoch ms). */
export const advanceTo = (until: string | number) =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => advance(Duration.millis(Math.max(0, (typeof until === "string" ? Date.parse(until) : until) - now)))
  )

/**
 * Starts the test at `instant`, with the cluster's shards acquired. Call it first. A jump, not a
 * walk: the timers set so far wake once, at the start instant.
 */
export const startAt = (instant: string | number) =>
  Effect.gen(function*() {
    yield* TestRuntime.warmUp
    const at = typeof instant === "string" ? Date.parse(instant) : instant
    const virtual = yield* VirtualClock.current
    if (virtual === undefined) {
      yield* TestClock.setTime(Math.max(at, yield* Clock.currentTimeMillis))
    } else if (at > virtual.unsafeCurrentTimeMillis()) {
      virtual.unsafeSetInstant(at)
      while (virtual.unsafeWakeNext(at) > 0) {
        // every timer due by now wakes in this one instant
      }
    }
    yield* settle
  })

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const RECEPTIONIST = "4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId

/** A tenant with a user, an active agent and `balance` minor units in its wallet. */
export const tenant = (options: { readonly balance?: number; readonly agentName?: string } = {}) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const agents = yield* AgentsRepo
    const { tenant } = yield* users.create({
      email: `kit-${crypto.randomUUID()}@example.com`,
      passwordHash: "x",
      companyName: "Test Co"
    })
    const tenantId = tenant!.id as TenantId
    const persona = Option.getOrThrow(yield* agents.findPersona(RECEPTIONIST))
    const agent = yield* agents.create(tenantId, persona, options.agentName ?? "Caller")
    if ((options.balance ?? 0) > 0) yield* topUp(tenantId, options.balance!)
    return { tenantId, agentId: agent.id as AgentId }
  })

export const topUp = (tenantId: TenantId, amount: number) =>
  Effect.flatMap(
    TenantEntity.client,
    (client) => client(tenantId).TopUp({ idempotencyKey: `kit-${crypto.randomUUID()}`, amount })
  ).pipe(Effect.orDie)

export const balance = (tenantId: TenantId) =>
  Effect.flatMap(TenantEntity.client, (client) => client(tenantId).GetBalance()).pipe(Effect.orDie)

export const voiceNumber = (tenantId: TenantId, phoneNumber = "+14155550100", provider: PhoneProvider = "PROVIDER_A") =>
  Effect.flatMap(VoiceNumbersRepo, (numbers) => numbers.create(tenantId, { phoneNumber, provider, label: null })).pipe(
    Effect.map((n) => n.id as VoiceNumberId),
    Effect.orDie
  )

/** A contact list holding `phoneNumbers` (E.164), in that order. */
export const contactList = (
  tenantId: TenantId,
  phoneNumbers: ReadonlyArray<string>,
  name = `list-${crypto.randomUUID()}`
) =>
  Effect.gen(function*() {
    const lists = yield* ContactListsRepo
    const contacts = yield* ContactsRepo
    const sql = yield* SqlClient.SqlClient
    const list = yield* lists.create(tenantId, name, {}).pipe(Effect.orDie)
    for (let i = 0; i < phoneNumbers.length; i += 1000) {
      yield* contacts.insertMany(
        { tenantId, listId: list.id as ContactListId },
        phoneNumbers.slice(i, i + 1000).map((phoneNumber) => ({ phoneNumber, name: null, email: null, metadata: {} }))
      ).pipe(sql.withTransaction, Effect.orDie)
    }
    return list.id as ContactListId
  })

// ---------------------------------------------------------------------------
// Conversations
// ---------------------------------------------------------------------------

/**
 * Changes the agent as `PATCH /agents/{id}` does (its voice choices, greeting, prompt, knowledge
 * bases), checked by the same rules; dies on a refused change.
 */
export const configureAgent = (tenantId: TenantId, agentId: AgentId, patch: typeof UpdateAgentRequest.Encoded) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const sql = yield* SqlClient.SqlClient
    const request = yield* Schema.decodeUnknown(UpdateAgentRequest)(patch).pipe(Effect.orDie)
    return yield* Effect.gen(function*() {
      const found = Option.getOrThrow(yield* agents.find(tenantId, agentId, { forUpdate: true }))
      const next = yield* Either.match(applyAgentPatch(stateOf(found.agent), request), {
        onLeft: (error) => Effect.die(error),
        onRight: Effect.succeed
      })
      if (request.knowledgeBaseIds !== undefined) {
        const unknown = yield* agents.setKnowledgeBases(tenantId, agentId, request.knowledgeBaseIds)
        if (unknown.length > 0) return yield* Effect.dieMessage(`unknown knowledge bases: ${unknown.join(", ")}`)
      }
      return yield* agents.save(tenantId, agentId, next)
    }).pipe(sql.withTransaction, Effect.orDie)
  })

/**
 * Places a call as `POST /channels/voice/call` does, from `voiceNumberId` to `to` (its last digits
 * pick the simulated carrier's behaviour: `…0030` answers and talks 30 s), its callee following
 * `caller` (see `SimulatedCaller`: say, interrupt, backchannel, noise, pause, silent, hangUp).
 * Answers the session id; read the call with {@link callDetail}.
 */
export const call = (
  t: { readonly tenantId: TenantId; readonly agentId: AgentId },
  options: {
    readonly voiceNumberId: VoiceNumberId
    readonly to: string
    readonly caller?: ReadonlyArray<CallerStep> | undefined
    readonly metadata?: Record<string, unknown> | undefined
  }
) =>
  Effect.gen(function*() {
    const specs = yield* CallSpecs
    const numbers = yield* VoiceNumbersRepo
    const calls = yield* LiveCallEntity.client
    const number = Option.getOrThrow(yield* numbers.find(t.tenantId, options.voiceNumberId).pipe(Effect.orDie))
    const sessionId = crypto.randomUUID() as SessionId
    const spec = yield* specs.make({
      tenantId: t.tenantId,
      agentId: t.agentId,
      voiceNumber: number,
      toNumber: options.to,
      customerId: null,
      campaignId: null,
      campaignAttemptId: null,
      metadata: {
        ...options.metadata,
        ...(options.caller === undefined ? {} : { simulatedCaller: scriptToMetadata(options.caller) })
      }
    })
    yield* deliver(calls(sessionId).Start({ spec })).pipe(Effect.orDie)
    return sessionId
  })

/** A call as `GET /calls/{sessionId}` answers it: times, outcome, cost, transcript, events. */
export const callDetail = (tenantId: TenantId, sessionId: SessionId) =>
  Effect.flatMap(CallSessionsRepo, (repo) => repo.findLog(tenantId, sessionId)).pipe(Effect.map(Option.getOrThrow))

/** Creates a campaign (defaults: the tenant's agent and number are required). */
export const campaign = (tenantId: TenantId, input: Omit<CreateCampaignRequest, never>) =>
  Effect.flatMap(Campaigns, (campaigns) => campaigns.create(tenantId, input)).pipe(Effect.orDie)

/** The campaign's attempts, all of them, in order. */
export const attempts = (tenantId: TenantId, id: CampaignId) =>
  Effect.flatMap(CampaignsRepo, (repo) => repo.attempts(tenantId, id, { page: 1, pageSize: 100_000 })).pipe(
    Effect.map((page) => page.items)
  )

/**
 * A call-ended event as the LiveCall entity publishes it (an outgoing call by default), for driving
 * the post-call listeners without placing a call; {@link publishCallEnded} publishes it.
 */
export const callEndedEvent = (
  t: { readonly tenantId: TenantId; readonly agentId: AgentId },
  fields: Partial<CallEndedEvent> = {}
): CallEndedEvent => ({
  sessionId: crypto.randomUUID() as SessionId,
  tenantId: t.tenantId,
  agentId: t.agentId,
  campaignId: null,
  campaignAttemptId: null,
  customerId: null,
  direction: "OUTGOING",
  fromNumber: "+14155550100",
  toNumber: "+14155550199",
  outcome: "ANSWERED",
  endReason: "test",
  startedAt: new Date(0),
  answeredAt: null,
  endedAt: new Date(0),
  durationSeconds: 0,
  billedSeconds: 0,
  cost: 0,
  currency: "USD",
  transcript: [],
  metadata: {},
  ...fields
})

/** Publishes call-ended events to the message outbox in one transaction, as calls ending do, and wakes its sender. */
export const publishCallEnded = (...events: ReadonlyArray<CallEndedEvent>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* MessageOutbox
    yield* Effect.forEach(events, outbox.onCallEnded, { discard: true }).pipe(sql.withTransaction, Effect.orDie)
    yield* outbox.nudge
  })

/** Creates a chat-app campaign from the request as the API takes it (validated the same way). */
export const chatAppCampaign = (tenantId: TenantId, input: typeof CreateChatAppCampaignRequest.Encoded) =>
  Schema.decode(CreateChatAppCampaignRequest)(input).pipe(
    Effect.flatMap((request) => Effect.flatMap(MessagingCampaigns, (m) => m.createChatApp(tenantId, request))),
    Effect.orDie
  )

/** Creates an SMS campaign from the request as the API takes it (validated the same way). */
export const smsCampaign = (tenantId: TenantId, input: typeof CreateSmsCampaignRequest.Encoded) =>
  Schema.decode(CreateSmsCampaignRequest)(input).pipe(
    Effect.flatMap((request) => Effect.flatMap(MessagingCampaigns, (m) => m.createSms(tenantId, request))),
    Effect.orDie
  )

/** The tenant's post-call messages of one channel, newest first. */
export const messages = (tenantId: TenantId, channel: MessageChannel) =>
  Effect.flatMap(MessagingCampaigns, (m) => m.messages(tenantId, channel, {}, { page: 1, pageSize: 100 })).pipe(
    Effect.map((page) => page.items)
  )
