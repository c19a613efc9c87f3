/**
 * The composition roots: which layers each CLI role runs. Nothing else in the codebase assembles
 * the whole graph.
 *
 * - `Embedded` (`start`): database, the only runner (entities, singletons, simulated carrier), the
 *   three HTTP services and the gateway, in one process.
 * - `RunnerNode` (`runner`): a runner of a distributed cluster, no HTTP.
 * - `SingleService` (`serve <service>`): one HTTP service, a client-only node of the cluster.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { ServiceName } from "@voiceagent/domain/Gateway"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { CampaignHttpLive } from "@voiceagent/http/Campaign/CampaignHttp"
import { CommsHttpLive } from "@voiceagent/http/Comms/CommsHttp"
import { webCallStreams } from "@voiceagent/http/Comms/WebCallsHttp"
import { serveGateway } from "@voiceagent/http/Gateway/Gateway"
import type { ProtectionOptions } from "@voiceagent/http/Gateway/Protection"
import { HttpDependencies } from "@voiceagent/http/HttpDependencies"
import { serveMetrics } from "@voiceagent/http/MetricsServer"
import { type TracingOptions, withTracing } from "@voiceagent/http/Observability/Tracing"
import { PlatformCoreHttpLive } from "@voiceagent/http/PlatformCore/PlatformCoreHttp"
import { serveApi } from "@voiceagent/http/Serve"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import { defaultClusterStorageRetention } from "@voiceagent/runner/Cluster/StorageCleanup"
import { ChromaServer } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { Embedders, makeEmbedders } from "@voiceagent/runner/Knowledge/Embedders"
import { type KnowledgeOptions, KnowledgeServices } from "@voiceagent/runner/Knowledge/KnowledgeServices"
import { defaultIngestionOptions } from "@voiceagent/runner/Knowledge/KnowledgeSettings"
import { makeOfflineEmbedder } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import { makeOpenAiEmbedder } from "@voiceagent/runner/Knowledge/OpenAiEmbedder"
import { defaultUrlPolicy } from "@voiceagent/runner/Knowledge/UrlFetcher"
import { makeAzureSmsSender } from "@voiceagent/runner/Messaging/AzureSms"
import { defaultMessagingOptions } from "@voiceagent/runner/Messaging/MessageOutbox"
import { makeTwilioSmsSender } from "@voiceagent/runner/Messaging/TwilioSms"
import { makeVonageSmsSender } from "@voiceagent/runner/Messaging/VonageSms"
import { makeWhatsAppCloudSender } from "@voiceagent/runner/Messaging/WhatsAppCloud"
import { MetricsRefresh } from "@voiceagent/runner/Observability/PlatformMetrics"
import { Recordings, RecordingsSettings } from "@voiceagent/runner/Recordings/Recordings"
import { defaultRuntimeOptions, RuntimeLive, type RuntimeOptions } from "@voiceagent/runner/Runtime"
import { PlatformSettings, type PlatformSettingsShape } from "@voiceagent/runner/Settings"
import * as Database from "@voiceagent/runner/Sql/Database"
import * as Schema from "@voiceagent/runner/Sql/Schema"
import { makeTelnyxCarrier } from "@voiceagent/runner/Telephony/TelnyxCarrier"
import { makeTwilioCarrier } from "@voiceagent/runner/Telephony/TwilioCarrier"
import { VoiceCatalog } from "@voiceagent/runner/Voice/VoiceCatalog"
import { catalogOf, type VoiceOptions } from "@voiceagent/runner/Voice/VoiceProvidersLive"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { type AppConfig, publicUrlOf } from "./Config.js"

export const databaseTarget = (config: AppConfig, applicationName = "voiceagent"): Database.DatabaseTarget =>
  Option.match(config.databaseUrl, {
    onNone: () => Database.DatabaseTarget.Pglite({ dataDir: path.resolve(config.dataDir, "pglite") }),
    onSome: (url) => Database.DatabaseTarget.Postgres({ url, applicationName })
  })

/** Migrations and the cluster's tables; exclusive across processes on PostgreSQL. */
export const migrate = (target: Database.DatabaseTarget) =>
  Effect.gen(function*() {
    const applied = yield* Schema.prepare({ exclusive: target._tag === "Postgres" })
    for (const [id, name] of applied) yield* Effect.logInfo(`Applied migration ${id}_${name}`)
    return applied
  })

/** The database, migrated before anything else starts. */
export const DatabaseLive = (target: Database.DatabaseTarget) =>
  Database.layer(target).pipe(Layer.tap((context) => Effect.provide(migrate(target), context)))

// ---------------------------------------------------------------------------
// Options, from the configuration
// ---------------------------------------------------------------------------

export interface ServicesOptions {
  readonly host: string
  readonly ports: Readonly<Record<ServiceName | "gateway", number>>
  readonly jwtSecret: Redacted.Redacted
  readonly jwtTtl: Duration.DurationInput
  readonly publicUrl: string | undefined
  readonly twilioAuthToken: Option.Option<Redacted.Redacted>
  /** Verifies Telnyx's webhooks (`TELNYX_PUBLIC_KEY`). */
  readonly telnyxPublicKey?: Option.Option<crypto.KeyObject> | undefined
  readonly chatAppAppSecret: Option.Option<Redacted.Redacted>
  /** The gateway's CORS, rate and body limits; omitted: none. */
  readonly protection?: ProtectionOptions | undefined
}

export interface NodeOptions {
  readonly settings: PlatformSettingsShape
  readonly cluster: Cluster.ClusterOptions
  readonly runtime: RuntimeOptions
  readonly telemetry: TelemetryOptions
}

export interface TelemetryOptions {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: tracing on when set. */
  readonly otlpEndpoint: Option.Option<string>
  /** `OTEL_SERVICE_NAME`; else `voiceagent-<role>`. */
  readonly serviceName: Option.Option<string>
  /** The runner's metrics server. */
  readonly metricsHost: string
  readonly metricsPort: number
}

export const telemetryOptions = (config: AppConfig): TelemetryOptions => ({
  otlpEndpoint: config.telemetry.otlpEndpoint,
  serviceName: config.telemetry.serviceName,
  metricsHost: config.host,
  metricsPort: config.telemetry.metricsPort
})

const tracingFor = (telemetry: TelemetryOptions, role: string): TracingOptions => ({
  otlpEndpoint: telemetry.otlpEndpoint,
  serviceName: Option.getOrElse(telemetry.serviceName, () => `voiceagent-${role}`)
})

export const servicesOptions = (config: AppConfig, jwtSecret: Redacted.Redacted): ServicesOptions => ({
  host: config.host,
  ports: {
    gateway: config.port,
    "platform-core": config.platformCorePort,
    comms: config.commsPort,
    campaign: config.campaignPort
  },
  jwtSecret,
  jwtTtl: config.jwtTtl,
  publicUrl: Option.getOrUndefined(config.publicUrl),
  twilioAuthToken: config.twilio.authToken,
  telnyxPublicKey: config.telnyx.publicKey,
  chatAppAppSecret: config.messaging.appSecret,
  protection: config.protection
})

/** The message adapters the configuration names; the simulated senders serve the rest. */
export const messageSenders = (config: AppConfig): NonNullable<RuntimeOptions["senders"]> => {
  const m = config.messaging
  const sms: Partial<Record<PhoneProvider, ReturnType<typeof makeTwilioSmsSender>>> = {}
  if (m.PROVIDER_A === "twilio" && Option.isSome(config.twilio.accountSid) && Option.isSome(config.twilio.authToken)) {
    sms.PROVIDER_A = makeTwilioSmsSender({
      baseUrl: config.twilio.apiUrl,
      accountSid: config.twilio.accountSid.value,
      authToken: config.twilio.authToken.value
    })
  }
  if (m.PROVIDER_B === "vonage" && Option.isSome(m.vonageApiKey) && Option.isSome(m.vonageApiSecret)) {
    sms.PROVIDER_B = makeVonageSmsSender({
      baseUrl: m.vonageApiUrl,
      apiKey: m.vonageApiKey.value,
      apiSecret: m.vonageApiSecret.value,
      ...(Option.isSome(m.vonageDltEntityId) ? { dltEntityId: m.vonageDltEntityId.value } : {})
    })
  }
  if (m.PROVIDER_C === "azure" && Option.isSome(m.azureEndpoint) && Option.isSome(m.azureAccessKey)) {
    sms.PROVIDER_C = makeAzureSmsSender({ endpoint: m.azureEndpoint.value, accessKey: m.azureAccessKey.value })
  }
  return {
    chatApp: m.chatApp === "whatsapp" && Option.isSome(m.whatsappAccessToken)
      ? makeWhatsAppCloudSender({
        baseUrl: m.whatsappApiUrl,
        apiVersion: m.whatsappApiVersion,
        accessToken: m.whatsappAccessToken.value
      })
      : undefined,
    sms
  }
}

export type NodeRole = "embedded" | "runner" | "service"

/**
 * Knowledge bases: the vector store (CHROMA_URL; else an embedded Chroma under DATA_DIR for the
 * start role, none for the others), the embedders (the offline one always, an OpenAI-compatible
 * API when EMBEDDER is openai, which then is the default) and the settings.
 */
export const knowledgeOptions = (config: AppConfig, role: NodeRole): KnowledgeOptions => {
  const k = config.knowledge
  const vectorStore = Option.match(k.chromaUrl, {
    onSome: (url) => ChromaVectorStore.layer({ url }),
    onNone: () =>
      role === "embedded"
        ? ChromaVectorStore.layerFromServer.pipe(
          Layer.provide(ChromaServer.layer({ dataDir: path.resolve(config.dataDir, "chroma") }))
        )
        : undefined
  })
  const offline = makeOfflineEmbedder()
  const embedders = k.embedder === "openai"
    ? Layer.effect(
      Embedders,
      Effect.map(
        makeOpenAiEmbedder({
          url: k.embeddingsUrl,
          model: k.embeddingsModel,
          apiKey: Option.getOrUndefined(Option.map(k.embeddingsApiKey, Redacted.value)),
          dimensions: Option.getOrUndefined(k.embeddingsDimensions)
        }),
        (openai) => makeEmbedders([openai, offline], openai.id)
      )
    )
    : Embedders.layer([offline])
  return {
    vectorStore,
    embedders,
    settings: {
      defaultScoreThreshold: k.scoreThreshold,
      urlPolicy: { ...defaultUrlPolicy, allow: k.urlAllowList },
      ingestion: {
        ...defaultIngestionOptions,
        owner: role === "runner" ? `runner ${config.cluster.runnerHost}:${config.cluster.runnerPort}` : "embedded"
      }
    }
  }
}

/** The speech and language providers configured (credentials are platform configuration). */
export const voiceOptions = (config: AppConfig): VoiceOptions => {
  const v = config.voice
  const some = <A>(o: Option.Option<A>) => Option.getOrUndefined(o)
  const configured = (url: Option.Option<string>, key: Option.Option<Redacted.Redacted>) =>
    Option.isSome(url) || Option.isSome(key)
  return {
    deepgram: Option.isNone(v.deepgramApiKey)
      ? undefined
      : { url: v.deepgramUrl, apiKey: v.deepgramApiKey.value, model: v.deepgramModel },
    openAiTranscription: configured(v.transcriptionUrl, v.transcriptionApiKey)
      ? {
        baseUrl: Option.getOrElse(v.transcriptionUrl, () => OPENAI_API_URL),
        apiKey: some(v.transcriptionApiKey),
        model: v.transcriptionModel
      }
      : undefined,
    openAiChat: configured(v.llmUrl, v.llmApiKey)
      ? { baseUrl: Option.getOrElse(v.llmUrl, () => OPENAI_API_URL), apiKey: some(v.llmApiKey), model: v.llmModel }
      : undefined,
    elevenLabs: Option.isNone(v.elevenLabsApiKey)
      ? undefined
      : { url: v.elevenLabsUrl, apiKey: v.elevenLabsApiKey.value, model: v.elevenLabsModel, voice: v.elevenLabsVoice },
    openAiSpeech: configured(v.speechUrl, v.speechApiKey)
      ? {
        baseUrl: Option.getOrElse(v.speechUrl, () => OPENAI_API_URL),
        apiKey: some(v.speechApiKey),
        model: v.speechModel,
        voice: v.speechVoice
      }
      : undefined,
    defaults: { speechToText: some(v.stt), languageModel: some(v.llm), textToSpeech: some(v.tts) },
    maxCallSeconds: Math.floor(Duration.toSeconds(config.calls.maxCallDuration))
  }
}

const OPENAI_API_URL = "https://api.openai.com/v1"

export const nodeOptions = (config: AppConfig, role: NodeRole = "embedded"): NodeOptions => {
  const carriers: Partial<RuntimeOptions["carriers"] & {}> = {}
  for (
    const [provider, carrier] of Object.entries(config.telephony) as Array<
      [PhoneProvider, "simulated" | "twilio" | "telnyx"]
    >
  ) {
    if (carrier === "twilio" && Option.isSome(config.twilio.accountSid) && Option.isSome(config.twilio.authToken)) {
      carriers[provider] = makeTwilioCarrier({
        baseUrl: config.twilio.apiUrl,
        accountSid: config.twilio.accountSid.value,
        authToken: config.twilio.authToken.value,
        statusCallbackBaseUrl: publicUrlOf(config),
        ringTimeoutSeconds: Duration.toSeconds(config.calls.dialTimeout)
      })
    }
    if (carrier === "telnyx" && Option.isSome(config.telnyx.apiKey) && Option.isSome(config.telnyx.connectionId)) {
      carriers[provider] = makeTelnyxCarrier({
        baseUrl: config.telnyx.apiUrl,
        apiKey: config.telnyx.apiKey.value,
        connectionId: config.telnyx.connectionId.value,
        webhookBaseUrl: publicUrlOf(config),
        ringTimeoutSeconds: Duration.toSeconds(config.calls.dialTimeout)
      })
    }
  }
  return {
    settings: {
      rates: config.rates,
      calls: {
        defaultConcurrentCalls: config.calls.maxConcurrentCalls,
        maxCallDurationSeconds: Math.floor(Duration.toSeconds(config.calls.maxCallDuration)),
        defaultDialTimeoutSeconds: Math.floor(Duration.toSeconds(config.calls.dialTimeout))
      }
    },
    cluster: {
      shardsPerGroup: config.cluster.shardsPerGroup,
      runnerHost: config.cluster.runnerHost,
      runnerPort: config.cluster.runnerPort,
      listenHost: Option.getOrUndefined(config.cluster.listenHost),
      shardLockRefreshInterval: config.cluster.shardLockRefresh,
      shardLockExpiration: config.cluster.shardLockExpiration,
      entityMessagePollInterval: config.cluster.entityMessagePoll,
      runnerHealthCheckInterval: config.cluster.runnerHealthCheck
    },
    runtime: {
      ...defaultRuntimeOptions,
      simulator: {
        ringMillis: config.simulatorRingMillis,
        onDial: Option.match(config.simulatorDialLog, {
          onNone: () => undefined,
          // one short line per dial, appended atomically: processes sharing the file do not interleave
          onSome: (file) => (dial) => fs.appendFileSync(file, `${dial.sessionId} ${dial.to} ${dial.at}\n`)
        })
      },
      carriers,
      callsPerSecondPerNumber: config.voiceNumberCps,
      supervisorInterval: config.supervisorInterval,
      messaging: { ...defaultMessagingOptions, defaultSmsProvider: config.messaging.defaultSmsProvider },
      senders: messageSenders(config),
      knowledge: knowledgeOptions(config, role),
      failpoints: config.failpoints,
      voice: voiceOptions(config),
      clusterStorage: { ...defaultClusterStorageRetention, ...config.clusterStorage },
      recordings: {
        directory: Option.getOrElse(config.recordings.directory, () => path.join(config.dataDir, "recordings")),
        retentionDays: config.recordings.retentionDays,
        sweepInterval: "1 hour"
      },
      media: {
        host: config.host,
        port: config.media.port,
        publicUrl: Option.getOrUndefined(config.media.publicUrl),
        // a runner is reached where the cluster reaches it, unless it says otherwise
        advertisedHost: role === "runner" ? config.cluster.runnerHost : undefined
      }
    },
    telemetry: telemetryOptions(config)
  }
}

export const upstreamUrls = (config: AppConfig): Record<ServiceName, string> => ({
  "platform-core": Option.getOrElse(config.platformCoreUrl, () => `http://127.0.0.1:${config.platformCorePort}`),
  comms: Option.getOrElse(config.commsUrl, () => `http://127.0.0.1:${config.commsPort}`),
  campaign: Option.getOrElse(config.campaignUrl, () => `http://127.0.0.1:${config.campaignPort}`)
})

// ---------------------------------------------------------------------------
// Layers
// ---------------------------------------------------------------------------

const dependencies = (options: ServicesOptions) =>
  HttpDependencies({
    sessions: { secret: options.jwtSecret, ttl: options.jwtTtl },
    publicUrl: options.publicUrl,
    twilioAuthToken: options.twilioAuthToken,
    telnyxPublicKey: options.telnyxPublicKey,
    chatAppAppSecret: options.chatAppAppSecret
  })

export const serviceLayers = (options: ServicesOptions) => ({
  "platform-core": serveApi("platform-core", PlatformCoreHttpLive, {
    host: options.host,
    port: options.ports["platform-core"]
  }),
  comms: serveApi("comms", CommsHttpLive, { host: options.host, port: options.ports.comms }, webCallStreams),
  campaign: serveApi("campaign", CampaignHttpLive, { host: options.host, port: options.ports.campaign })
})

/** Settings and an HTTP client (webhooks, carriers) for a node of the cluster. */
const nodeBasics = (node: NodeOptions) =>
  Layer.mergeAll(
    PlatformSettings.layer(node.settings),
    NodeHttpClient.layerUndici,
    Layer.succeed(VoiceCatalog, catalogOf(node.runtime.voice))
  )

/** Everything in one process: the runner and its entities, the three services and the gateway. */
export const Embedded = (options: ServicesOptions, node: NodeOptions) => {
  const services = serviceLayers(options)
  return Layer.mergeAll(
    services["platform-core"],
    services.comms,
    services.campaign,
    serveGateway({ host: options.host, port: options.ports.gateway, protection: options.protection })
  ).pipe(
    Layer.provide(dependencies(options)),
    Layer.provide(MetricsRefresh.fromDatabase),
    Layer.provideMerge(RuntimeLive(node.runtime)),
    Layer.provideMerge(Cluster.embedded(node.cluster)),
    Layer.provideMerge(nodeBasics(node)),
    withTracing(tracingFor(node.telemetry, "start"))
  )
}

/** A runner of a distributed cluster: entities and singletons; HTTP only for `/metrics` and `/healthz`. */
export const RunnerNode = (node: NodeOptions) =>
  serveMetrics("runner", { host: node.telemetry.metricsHost, port: node.telemetry.metricsPort }).pipe(
    Layer.provide(MetricsRefresh.fromDatabase),
    Layer.provideMerge(RuntimeLive(node.runtime)),
    Layer.provideMerge(Cluster.runner(node.cluster)),
    Layer.provideMerge(nodeBasics(node)),
    withTracing(tracingFor(node.telemetry, "runner"))
  )

/** One HTTP service in its own process, sending to entities as a client-only node. */
export const SingleService = (service: ServiceName, options: ServicesOptions, node: NodeOptions) => {
  const services = serviceLayers(options)
  const withDependencies = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
    layer.pipe(
      Layer.provide([dependencies(options), MetricsRefresh.fromDatabase]),
      Layer.provideMerge(KnowledgeServices(node.runtime.knowledge)),
      Layer.provideMerge(Recordings.Default.pipe(Layer.provide(RecordingsSettings.layer(node.runtime.recordings)))),
      Layer.provideMerge(Cluster.client(node.cluster)),
      Layer.provideMerge(nodeBasics(node)),
      withTracing(tracingFor(node.telemetry, service))
    )
  switch (service) {
    case "platform-core":
      return withDependencies(services["platform-core"])
    case "comms":
      return withDependencies(services.comms)
    case "campaign":
      return withDependencies(services.campaign)
  }
}

export const GatewayOnly = (config: AppConfig) =>
  serveGateway({ host: config.host, port: config.port, protection: config.protection }).pipe(
    Layer.provideMerge(ServiceDirectory.make(upstreamUrls(config))),
    withTracing(tracingFor(telemetryOptions(config), "gateway"))
  )
