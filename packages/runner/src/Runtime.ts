/**
 * What a runner runs: the entities (Tenant, LiveCall, Campaign), the cluster singletons (the webhook
 * and message dispatchers, the ledger's sweep) and the knowledge-base ingestion worker, with the
 * adapters they need. Requires a `Sharding` (from one of the `Cluster` layers), a `SqlClient` and an
 * `HttpClient`.
 */
import * as EntityId from "@effect/cluster/EntityId"
import * as ShardId from "@effect/cluster/ShardId"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as Singleton from "@effect/cluster/Singleton"
import { LiveCallEntity } from "@voiceagent/domain/Calls"
import { CampaignEntity } from "@voiceagent/domain/Campaigns"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { Ledger } from "./Billing/Ledger.js"
import { AgentBrain } from "./Brain/AgentBrain.js"
import { CallEnded } from "./CallRecords/CallEnded.js"
import { CallSessionsRepo } from "./CallRecords/CallSessionsRepo.js"
import { CallJournal } from "./Calls/CallJournal.js"
import { Conversations } from "./Calls/Conversations.js"
import { LiveCallLive } from "./Calls/LiveCallLive.js"
import { LocalCalls } from "./Calls/LocalCalls.js"
import { CampaignLive, defaultDialerOptions, type DialerOptions, DialerSettings } from "./Campaigns/CampaignLive.js"
import { CampaignsRepo } from "./Campaigns/CampaignsRepo.js"
import { DialPacer } from "./Campaigns/DialPacer.js"
import { deliver } from "./Cluster/Deliver.js"
import {
  clusterStorageCleanup,
  type ClusterStorageRetention,
  ClusterStorageSettings,
  defaultClusterStorageRetention
} from "./Cluster/StorageCleanup.js"
import { Failpoints, type FailpointSpec } from "./Failpoints.js"
import { Ingestion } from "./Knowledge/Ingestion.js"
import { type KnowledgeOptions, KnowledgeServices } from "./Knowledge/KnowledgeServices.js"
import {
  defaultMessagingOptions,
  messageDispatcher,
  MessageOutbox,
  type MessagingOptions,
  MessagingSettings
} from "./Messaging/MessageOutbox.js"
import { simulatedChatAppSender, simulatedSmsSender } from "./Messaging/SimulatedSenders.js"
import { type ChatAppSender, MessageSenders, type SmsSender } from "./Ports/MessageSenders.js"
import { CallEventSink, type Carrier, Telephony } from "./Ports/Telephony.js"
import { Recordings, type RecordingsOptions, RecordingsSettings } from "./Recordings/Recordings.js"
import { RepositoriesLive } from "./Repositories.js"
import { TimerWheel } from "./Shared/TimerWheel.js"
import { makeSimulatedCarrier, type SimulatorOptions } from "./Telephony/SimulatedCarrier.js"
import { makeWebCarrier } from "./Telephony/WebCarrier.js"
import { TenantEntityLive } from "./Tenants/TenantEntityLive.js"
import { LocalMedia, MediaWaker } from "./Voice/Media.js"
import { MediaServer, type MediaServerOptions } from "./Voice/MediaServer.js"
import { webrtcVad } from "./Voice/Vad.js"
import { type VoiceOptions, VoiceProvidersLive } from "./Voice/VoiceProvidersLive.js"
import { WebStreams } from "./Voice/WebMedia.js"
import { dispatcher, type DispatcherOptions, Webhooks } from "./Webhooks/Webhooks.js"

/** Every runner works the queue of ingestion jobs (leases, not a singleton: jobs spread over runners). */
const IngestionWorker = Layer.scopedDiscard(
  Effect.flatMap(Ingestion, (ingestion) => Effect.forkScoped(ingestion.worker))
)

export interface RuntimeOptions {
  readonly simulator: SimulatorOptions
  /** Carriers by name; every provider without one uses the simulator. */
  readonly carriers?: Partial<Record<PhoneProvider, Effect.Effect<Carrier, never, unknown>>>
  readonly webhooks: DispatcherOptions
  /** How often the ledger's sweep settles calls whose settlement was lost and drops abandoned reservations. */
  readonly supervisorInterval: Duration.DurationInput
  readonly dialer: DialerOptions
  /** Dials a voice number may start per second (carriers commonly allow 1). */
  readonly callsPerSecondPerNumber: number
  readonly messaging: MessagingOptions
  /** Message adapters; the simulated senders stand in for every one not given. */
  readonly senders?: {
    readonly chatApp?: Effect.Effect<ChatAppSender, never, unknown> | undefined
    readonly sms?: Partial<Record<PhoneProvider, Effect.Effect<SmsSender, never, unknown>>> | undefined
  } | undefined
  /** Vector store, embedders and settings of knowledge bases (default: no vector store, offline embedder). */
  readonly knowledge?: KnowledgeOptions | undefined
  /** Where tests stop this process (`FAILPOINTS`; see `Failpoints`). */
  readonly failpoints?: ReadonlyArray<FailpointSpec> | undefined
  /** Speech and language providers (default: the built-in ones: the offline responder, the Flite voice). */
  readonly voice?: VoiceOptions | undefined
  /**
   * The media server network carriers stream calls' audio to (Twilio Media Streams); none by
   * default: the simulated carrier's line is in process.
   */
  readonly media?: MediaServerOptions | undefined
  /** Where call recordings go and how long they are kept (default: `RecordingsSettings.defaults`). */
  readonly recordings?: RecordingsOptions | undefined
  /** How long processed cluster messages are kept, and how often the rest go (default 7 days, hourly). */
  readonly clusterStorage?: ClusterStorageRetention | undefined
}

export const defaultRuntimeOptions: RuntimeOptions = {
  simulator: { ringMillis: 2000 },
  webhooks: { pollInterval: "1 second", maxIdleInterval: "10 seconds", batchSize: 50 },
  supervisorInterval: "15 seconds",
  dialer: defaultDialerOptions,
  callsPerSecondPerNumber: 1,
  messaging: defaultMessagingOptions
}

/**
 * Carrier events go to the call's entity: straight to it when it runs in this process, else as a
 * persisted message to wherever it runs.
 */
export const CallEventSinkLive = Layer.effect(
  CallEventSink,
  Effect.gen(function*() {
    const client = yield* LiveCallEntity.client
    const local = yield* LocalCalls
    return {
      report: (sessionId, event) =>
        local.deliver(sessionId, event).pipe(
          Effect.flatMap((delivered) =>
            delivered ? Effect.void : Effect.asVoid(client(sessionId).ProviderEvent({ event }))
          ),
          Effect.catchAllCause((cause) => Effect.logWarning("could not deliver a carrier event", cause))
        )
    }
  })
)

/**
 * A stream reaching this process for a call whose entity let go (a ringing call answered) wakes it
 * (`OpenMedia`: volatile and idempotent, so sent again on the cluster's transport errors: `deliver`).
 */
export const MediaWakerLive = Layer.effect(
  MediaWaker,
  Effect.map(
    LiveCallEntity.client,
    (client) => ({ wake: (sessionId) => Effect.orDie(deliver(client(sessionId).OpenMedia())) })
  )
)

const TelephonyLive = (options: RuntimeOptions) =>
  Layer.scoped(
    Telephony,
    Effect.gen(function*() {
      const simulated = yield* makeSimulatedCarrier(options.simulator)
      const configured: Partial<Record<PhoneProvider, Carrier>> = {}
      for (
        const [provider, make] of Object.entries(options.carriers ?? {}) as Array<
          [PhoneProvider, Effect.Effect<Carrier>]
        >
      ) {
        configured[provider] = yield* make
      }
      const web = yield* makeWebCarrier
      return { carrierFor: (provider) => provider === "WEB" ? web : configured[provider] ?? simulated }
    })
  )

const MessageSendersLive = (options: RuntimeOptions) =>
  Layer.effect(
    MessageSenders,
    Effect.gen(function*() {
      const chatApp = options.senders?.chatApp === undefined
        ? simulatedChatAppSender
        : yield* (options.senders.chatApp as Effect.Effect<ChatAppSender>)
      const sms: Partial<Record<PhoneProvider, SmsSender>> = {}
      for (
        const [provider, make] of Object.entries(options.senders?.sms ?? {}) as Array<
          [PhoneProvider, Effect.Effect<SmsSender>]
        >
      ) {
        sms[provider] = yield* make
      }
      const simulated = {
        PROVIDER_A: simulatedSmsSender("PROVIDER_A"),
        PROVIDER_B: simulatedSmsSender("PROVIDER_B"),
        PROVIDER_C: simulatedSmsSender("PROVIDER_C")
      }
      return { chatApp, sms: (provider: PhoneProvider) => sms[provider] ?? simulated[provider] }
    })
  )

/**
 * How old an open call reservation without a session must be before the ledger's sweep drops it: far
 * longer than a `Start` takes between its reservation and its session row (milliseconds), and than
 * `Deliver.deliver` keeps sending one (about two minutes).
 */
export const ABANDONED_RESERVATION_SECONDS = 600

/** How long a call may stay ENDED and unsettled before the ledger's sweep asks its tenant to settle it. */
export const UNSETTLED_CALL_SECONDS = 10

/**
 * The ledger's sweep: gives back the funds of reservations whose call was never written
 * (`Ledger.dropAbandoned`), and has the tenant settle calls that ended and were not settled (a flush
 * lost with its runner). Two statements a round, whatever the number of calls.
 */
const ledgerSweep = (interval: Duration.DurationInput) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const tenants = yield* TenantEntity.client
    yield* ledger.dropAbandoned(ABANDONED_RESERVATION_SECONDS).pipe(
      Effect.tap((dropped) =>
        dropped > 0
          ? Effect.logWarning(`released the funds of ${dropped} reservation(s) whose call was never written`)
          : Effect.void
      ),
      // calls ENDED whose settlement flush was lost with its runner: their tenant settles them
      Effect.zipRight(
        ledger.unsettledTenants(UNSETTLED_CALL_SECONDS).pipe(
          Effect.flatMap((ids) =>
            Effect.forEach(ids, (id) => tenants(id).SettleEnded().pipe(Effect.ignore), {
              concurrency: 16,
              discard: true
            })
          )
        )
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("the ledger's sweep failed", cause)),
      Effect.repeat(Schedule.spaced(interval))
    )
  })

/**
 * What drives live calls and campaigns again after a runner stops: looks every second (in this
 * process's memory) at which shards this runner holds, and for each shard newly acquired (the runner
 * started, or another died or left and this one took over) wakes the live calls and the scheduled or
 * running campaigns that live there, from their rows. Nothing polls the calls or campaigns
 * themselves: a running one drives itself (its timers, its dial loop), and its rows are where the
 * next owner picks it up. The look runs on the real clock, so a test's clock is not woken by it.
 */
const shardTakeover = Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  const config = yield* ShardingConfig.ShardingConfig
  const sessions = yield* CallSessionsRepo
  const campaigns = yield* CampaignsRepo
  const calls = yield* LiveCallEntity.client
  const campaignClient = yield* CampaignEntity.client
  let held = new Set<string>()
  const tick = Effect.gen(function*() {
    const now = new Set<string>()
    for (const group of config.availableShardGroups) {
      for (let id = 1; id <= config.shardsPerGroup; id++) {
        if (sharding.hasShardId(ShardId.make(group, id))) now.add(`${group}:${id}`)
      }
    }
    const gained = [...now].filter((shard) => !held.has(shard))
    held = now
    if (gained.length === 0) return
    const mine = new Set(gained)
    const inGained = (id: string) => mine.has(sharding.getShardId(EntityId.make(id), "default").toString())
    const [live, active] = yield* Effect.all([sessions.live(10_000), campaigns.active(10_000)])
    const woken = [
      ...live.filter(inGained).map((id) => calls(id).Status().pipe(Effect.ignore)),
      ...active.filter(inGained).map((id) => campaignClient(id).Wake().pipe(Effect.ignore))
    ]
    yield* Effect.all(woken, { concurrency: 16, discard: true })
    if (woken.length > 0) {
      yield* Effect.logInfo(`acquired ${gained.length} shard(s): woke ${woken.length} call(s) and campaign(s)`)
    }
  })
  const realClock = Clock.make()
  yield* tick.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("waking the entities of acquired shards failed", cause)),
    Effect.zipRight(Effect.withClock(Effect.sleep("1 second"), realClock)),
    Effect.forever
  )
})

/**
 * A campaign call ended: its dial loop is woken. (Its attempt and contact are written by the end's own
 * statement: `CampaignsRepo.ATTEMPTS_ENDED_CTES`.)
 */
const campaignListener = Effect.gen(function*() {
  const client = yield* CampaignEntity.client
  // One Wake per campaign in flight: calls that end while it is on its way ask for one more after it
  // (the loop reads its tables when woken, so one Wake after the last end covers them all), instead of
  // a message each.
  const waking = new Map<string, "sending" | "again">()
  const wake = (campaignId: string): Effect.Effect<void> =>
    client(campaignId).Wake().pipe(
      Effect.catchAllCause((cause) => Effect.logDebug("could not wake a campaign", cause)),
      Effect.zipRight(Effect.suspend(() => {
        if (waking.get(campaignId) === "again") {
          waking.set(campaignId, "sending")
          return wake(campaignId)
        }
        waking.delete(campaignId)
        return Effect.void
      })),
      // a sender interrupted (its call's entity stopping) leaves the next end to send one
      Effect.onInterrupt(() => Effect.sync(() => void waking.delete(campaignId)))
    )
  return {
    afterCommit: (event: { readonly campaignId: string | null; readonly campaignAttemptId: string | null }) =>
      Effect.suspend(() => {
        const campaignId = event.campaignId
        if (campaignId === null || event.campaignAttemptId === null) return Effect.void
        if (waking.has(campaignId)) {
          waking.set(campaignId, "again")
          return Effect.void
        }
        waking.set(campaignId, "sending")
        return wake(campaignId)
      })
  }
})

export const RuntimeLive = (options: RuntimeOptions = defaultRuntimeOptions) =>
  Layer.mergeAll(
    TenantEntityLive,
    LiveCallLive,
    CampaignLive,
    Singleton.make("webhook-dispatcher", dispatcher(options.webhooks)),
    Singleton.make("ledger-sweep", ledgerSweep(options.supervisorInterval)),
    Singleton.make("message-dispatcher", messageDispatcher),
    Singleton.make("recording-retention", Effect.flatMap(Recordings, (recordings) => recordings.retention)),
    Singleton.make("cluster-storage-cleanup", clusterStorageCleanup).pipe(
      Layer.provide(ClusterStorageSettings.layer(options.clusterStorage ?? defaultClusterStorageRetention))
    ),
    // without a vector store no knowledge base can exist, so there is nothing to ingest
    options.knowledge?.vectorStore === undefined ? Layer.empty : IngestionWorker,
    Layer.scopedDiscard(Effect.forkScoped(shardTakeover))
  ).pipe(
    Layer.provide(Conversations.Default),
    Layer.provide(options.media === undefined ? Layer.empty : MediaServer.layer(options.media)),
    Layer.provide(webrtcVad()),
    Layer.provide(Layer.succeed(Failpoints, options.failpoints ?? [])),
    Layer.provide(MessageSendersLive(options)),
    Layer.provide(DialerSettings.layer(options.dialer)),
    Layer.provide(DialPacer.layer(options.callsPerSecondPerNumber)),
    Layer.provide(TelephonyLive(options)),
    Layer.provideMerge(WebStreams.Default),
    Layer.provideMerge(LocalMedia.Default.pipe(Layer.provide(MediaWakerLive))),
    Layer.provide(CallEventSinkLive),
    // TimerWheel: the live calls' deadlines and the simulated carrier's line events, one timer fiber per runner
    Layer.provideMerge(Layer.merge(LocalCalls.Default, TimerWheel.Default)),
    // the live calls' writes, group-committed; the call-ended listeners write in the end's transaction
    Layer.provideMerge(
      CallJournal.Default.pipe(Layer.provideMerge(CallEnded.layer<Sharding.Sharding | Webhooks | MessageOutbox>([
        campaignListener,
        // the dispatchers are woken only when the end transaction queued rows for them
        Effect.map(Webhooks, (w) => ({
          wants: w.wants,
          onCallEnded: w.onCallEnded,
          afterCommit: (_, queued) => queued ? w.nudge : Effect.void
        })),
        Effect.map(MessageOutbox, (m) => ({
          wants: m.wants,
          onCallEnded: m.onCallEnded,
          afterCommit: (_, queued) => queued ? m.nudge : Effect.void
        }))
      ])))
    ),
    Layer.provide(VoiceProvidersLive(options.voice)),
    Layer.provideMerge(AgentBrain.responder),
    Layer.provideMerge(Layer.merge(RepositoriesLive, MessageOutbox.Default)),
    Layer.provideMerge(Recordings.Default.pipe(Layer.provide(RecordingsSettings.layer(options.recordings)))),
    Layer.provideMerge(MessagingSettings.layer(options.messaging)),
    Layer.provideMerge(Ingestion.Default),
    Layer.provideMerge(KnowledgeServices(options.knowledge))
  )
