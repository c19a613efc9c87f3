/**
 * Configuration comes from the environment, read once at start and validated as a whole; a bad
 * value stops the process with a message naming the variable. `Variables` is the list every role,
 * docs/configuration.md and the compose file agree on.
 */
import type { ProtectionOptions } from "@voiceagent/http/Gateway/Protection"
import { MAX_READ_BODY_BYTES } from "@voiceagent/http/RequestContext"
import { parseFailpoints } from "@voiceagent/runner/Failpoints"
import { dimensionsOf } from "@voiceagent/runner/Knowledge/OpenAiEmbedder"
import { parseAllowList } from "@voiceagent/runner/Knowledge/UrlFetcher"
import { parsePublicKey } from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface Variable {
  readonly name: string
  readonly default: string | undefined
  readonly description: string
}

export const Variables = [
  { name: "PORT", default: "3000", description: "Gateway port (0 picks a free port)" },
  { name: "PLATFORM_CORE_PORT", default: "3001", description: "Platform core service port" },
  { name: "COMMS_PORT", default: "3002", description: "Comms engine service port" },
  { name: "CAMPAIGN_PORT", default: "3003", description: "Campaign engine service port" },
  { name: "HOST", default: "127.0.0.1", description: "Interface every HTTP server binds (0.0.0.0 in containers)" },
  { name: "DATA_DIR", default: "./.data", description: "Embedded data (PGlite files, generated JWT secret)" },
  {
    name: "DATABASE_URL",
    default: undefined,
    description: "postgres:// URL; when set, PostgreSQL through @effect/sql-pg replaces PGlite"
  },
  {
    name: "JWT_SECRET",
    default: undefined,
    description:
      "HS256 secret for dashboard sessions, at least 32 characters; generated under DATA_DIR when unset (start role " +
      "only)"
  },
  { name: "JWT_TTL", default: "12 hours", description: "Lifetime of a dashboard session token" },
  { name: "LOG_LEVEL", default: "info", description: "trace, debug, info, warn, error, fatal or none" },
  {
    name: "METRICS_PORT",
    default: "0",
    description:
      "runner role: port of its /metrics and /healthz server (0 picks a free one; the HTTP roles serve /metrics on " +
      "their own port)"
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: undefined,
    description: "OTLP/HTTP collector base URL (spans go to <url>/v1/traces); unset: tracing off. The other " +
      "OTEL_EXPORTER_OTLP_* variables apply too"
  },
  {
    name: "OTEL_SERVICE_NAME",
    default: undefined,
    description: "service.name of this process's spans (default voiceagent-<role>)"
  },
  { name: "PUBLIC_URL", default: undefined, description: "Public base URL (default http://localhost:$PORT)" },
  { name: "PLATFORM_CORE_URL", default: undefined, description: "gateway role: base URL of platform core" },
  { name: "COMMS_URL", default: undefined, description: "gateway role: base URL of the comms engine" },
  { name: "CAMPAIGN_URL", default: undefined, description: "gateway role: base URL of the campaign engine" },
  {
    name: "RATE_LIMIT_PER_SECOND",
    default: "20",
    description: "Gateway: requests per second each API key may sustain (0: API keys are not rate limited)"
  },
  {
    name: "RATE_LIMIT_BURST",
    default: "100",
    description: "Gateway: requests an API key may make at once after a pause (its bucket's size)"
  },
  {
    name: "RATE_LIMIT_IP_PER_SECOND",
    default: "10",
    description:
      "Gateway: the same for requests without an API key (dashboard sessions, sign-up, login), per client IP address " +
      "(0: not limited)"
  },
  { name: "RATE_LIMIT_IP_BURST", default: "50", description: "Gateway: bucket size of a client IP address" },
  {
    name: "TRUSTED_PROXY_HOPS",
    default: "0",
    description:
      "Gateway: proxies in front of it that append to X-Forwarded-For; the client is the entry this many places from " +
      "the right (0: the connection)"
  },
  {
    name: "MAX_BODY_SIZE",
    default: "1 MiB",
    description: "Gateway: largest request body of ordinary routes (413 above); bytes, or KiB, MiB"
  },
  {
    name: "MAX_UPLOAD_SIZE",
    default: "101 MiB",
    description:
      "Gateway: ceiling of the large-body routes (uploads, bulk contacts, knowledge-base sources), each held to its " +
      "documented maximum"
  },
  {
    name: "CORS_ALLOWED_ORIGINS",
    default: undefined,
    description:
      "Gateway: origins browsers may call from, comma-separated (https://app.example.com), or *; unset: no CORS headers"
  },
  { name: "SHARDS_PER_GROUP", default: "100", description: "Cluster shards; the same on every runner of a cluster" },
  {
    name: "RUNNER_HOST",
    default: "localhost",
    description:
      "runner role: the address other nodes reach this runner at; auto: this machine's first non-loopback IPv4 address"
  },
  { name: "RUNNER_PORT", default: "34431", description: "runner role: the port runners talk to each other on" },
  {
    name: "RUNNER_LISTEN_HOST",
    default: undefined,
    description: "runner role: the interface to listen on (default RUNNER_HOST)"
  },
  { name: "SHARD_LOCK_REFRESH", default: "10 seconds", description: "How often a runner refreshes its shard locks" },
  { name: "SHARD_LOCK_EXPIRATION", default: "35 seconds", description: "When a silent runner's shards are taken over" },
  { name: "ENTITY_MESSAGE_POLL", default: "2 seconds", description: "How often runners look for stored messages" },
  {
    name: "RUNNER_HEALTH_CHECK_INTERVAL",
    default: "2 seconds",
    description: "How often runners check on each other: a runner whose database connections are gone is taken over"
  },
  {
    name: "MAX_CONCURRENT_CALLS",
    default: "10",
    description: "Concurrent calls per tenant, unless the tenant has its own limit"
  },
  { name: "MAX_CALL_DURATION", default: "1 hour", description: "A call is hung up after this much talk time" },
  { name: "DIAL_TIMEOUT", default: "30 seconds", description: "Ring time before an unanswered call is given up" },
  { name: "RATE_VOICE_PER_MINUTE", default: "5", description: "Default price of a minute of talk, in minor units" },
  {
    name: "RATE_WEB_PER_MINUTE",
    default: undefined,
    description: "Default price of a minute of a web call, in minor units (default: RATE_VOICE_PER_MINUTE)"
  },
  { name: "RATE_BILLING_INCREMENT", default: "6", description: "Default billing increment, in seconds" },
  { name: "RATE_SMS_PER_SEGMENT", default: "1", description: "Default price of an SMS segment, in minor units" },
  {
    name: "RATE_CHATAPP_PER_MESSAGE",
    default: "1",
    description: "Default price of a chat-app message, in minor units"
  },
  {
    name: "RATE_RESERVATION_CHUNK",
    default: "120",
    description: "Talk time each reservation holds funds for, in seconds"
  },
  { name: "SIMULATOR_RING_MS", default: "2000", description: "Simulated carrier: ring time in milliseconds" },
  {
    name: "SIMULATOR_DIAL_LOG",
    default: undefined,
    description: "Simulated carrier: append a line per dial to this file (tests)"
  },
  {
    name: "FAILPOINTS",
    default: undefined,
    description:
      "Tests only: <name>=pause@<n>:<token file> stops this process the n-th time it reaches a named point (failover " +
      "tests)"
  },
  {
    name: "VOICE_NUMBER_CPS",
    default: "1",
    description: "Campaign dials a voice number may start per second (shared by every runner)"
  },
  {
    name: "SUPERVISOR_INTERVAL",
    default: "15 seconds",
    description:
      "How often the ledger's sweep settles ended calls whose settlement was lost and releases reservations whose " +
      "call was never written"
  },
  {
    name: "CLUSTER_STORAGE_RETENTION",
    default: "7 days",
    description:
      "Processed cluster messages and their replies (cluster_messages, cluster_replies) older than this are deleted, " +
      "every CLUSTER_STORAGE_CLEANUP_INTERVAL; a command sent again within it is answered from storage"
  },
  {
    name: "CLUSTER_STORAGE_CLEANUP_INTERVAL",
    default: "1 hour",
    description: "How often processed cluster messages past CLUSTER_STORAGE_RETENTION are deleted"
  },
  {
    name: "SHUTDOWN_GRACE",
    default: "10 seconds",
    description: "On SIGTERM/SIGINT: how long requests in flight may take to finish before their connections are closed"
  },
  {
    name: "HTTP_HEADERS_TIMEOUT",
    default: "20 seconds",
    description: "How long a client may take to send a request's headers (then 408 and the connection is closed)"
  },
  {
    name: "HTTP_BODY_TIMEOUT",
    default: "15 seconds",
    description: "How long a request body may stop arriving before the request is answered 408 REQUEST_TIMEOUT"
  },
  {
    name: "HTTP_REQUEST_TIMEOUT",
    default: "5 minutes",
    description: "How long a client may take to send a whole request, uploads included (then 408)"
  },
  {
    name: "HTTP_KEEP_ALIVE_TIMEOUT",
    default: "5 seconds",
    description:
      "How long an idle keep-alive connection stays open; the gateway closes its own to the services a second sooner"
  },
  {
    name: "TELEPHONY_PROVIDER_A",
    default: "simulated",
    description: "Carrier for PROVIDER_A numbers: simulated, twilio or telnyx"
  },
  {
    name: "TELEPHONY_PROVIDER_B",
    default: "simulated",
    description: "Carrier for PROVIDER_B numbers: simulated, twilio or telnyx"
  },
  {
    name: "TELEPHONY_PROVIDER_C",
    default: "simulated",
    description: "Carrier for PROVIDER_C numbers: simulated, twilio or telnyx"
  },
  { name: "TWILIO_API_URL", default: "https://api.twilio.com", description: "Twilio REST origin" },
  {
    name: "TWILIO_ACCOUNT_SID",
    default: undefined,
    description: "Twilio account (required when a provider uses twilio)"
  },
  {
    name: "TWILIO_AUTH_TOKEN",
    default: undefined,
    description: "Twilio auth token: authenticates calls and verifies callbacks"
  },
  { name: "TELNYX_API_URL", default: "https://api.telnyx.com", description: "Telnyx REST origin (Call Control v2)" },
  { name: "TELNYX_API_KEY", default: undefined, description: "Telnyx API key (required when a provider uses telnyx)" },
  {
    name: "TELNYX_CONNECTION_ID",
    default: undefined,
    description:
      "Id of the Telnyx Call Control application calls are placed from (required when a provider uses telnyx)"
  },
  {
    name: "TELNYX_PUBLIC_KEY",
    default: undefined,
    description:
      "Telnyx webhook public key (base64, as Mission Control shows it): verifies Call Control webhooks (required " +
      "when a provider uses telnyx)"
  },
  {
    name: "CHATAPP_PROVIDER",
    default: "simulated",
    description: "Chat-app sender: simulated or whatsapp (the WhatsApp Cloud API)"
  },
  {
    name: "WHATSAPP_API_URL",
    default: "https://graph.facebook.com",
    description: "WhatsApp Cloud API (Graph API) origin"
  },
  { name: "WHATSAPP_API_VERSION", default: "v21.0", description: "Graph API version of the WhatsApp Cloud API" },
  {
    name: "WHATSAPP_ACCESS_TOKEN",
    default: undefined,
    description: "WhatsApp Cloud API bearer token (required when CHATAPP_PROVIDER is whatsapp)"
  },
  {
    name: "CHATAPP_APP_SECRET",
    default: undefined,
    description:
      "App secret that signs chat-app webhook notifications (X-Hub-Signature-256); unset: every notification is refused"
  },
  { name: "SMS_DEFAULT_PROVIDER", default: "PROVIDER_A", description: "SMS provider of campaigns that name none" },
  {
    name: "SMS_PROVIDER_A",
    default: "simulated",
    description: "SMS adapter for PROVIDER_A: simulated or twilio (Programmable Messaging, TWILIO_*)"
  },
  {
    name: "SMS_PROVIDER_B",
    default: "simulated",
    description: "SMS adapter for PROVIDER_B: simulated or vonage (Vonage SMS API)"
  },
  {
    name: "SMS_PROVIDER_C",
    default: "simulated",
    description: "SMS adapter for PROVIDER_C: simulated or azure (Azure Communication Services)"
  },
  { name: "VONAGE_API_URL", default: "https://rest.nexmo.com", description: "Vonage SMS API origin" },
  {
    name: "VONAGE_API_KEY",
    default: undefined,
    description: "Vonage API key (required when SMS_PROVIDER_B is vonage)"
  },
  {
    name: "VONAGE_API_SECRET",
    default: undefined,
    description: "Vonage API secret (required when SMS_PROVIDER_B is vonage)"
  },
  {
    name: "VONAGE_DLT_ENTITY_ID",
    default: undefined,
    description: "India DLT principal entity id, sent as entity-id with DLT templates"
  },
  {
    name: "AZURE_COMMUNICATION_ENDPOINT",
    default: undefined,
    description: "Azure Communication Services endpoint (required when SMS_PROVIDER_C is azure)"
  },
  {
    name: "AZURE_COMMUNICATION_ACCESS_KEY",
    default: undefined,
    description: "Azure Communication Services access key (base64)"
  },
  {
    name: "CHROMA_URL",
    default: undefined,
    description:
      "Chroma server for knowledge bases; unset: the start role runs one under DATA_DIR/chroma, other roles have none"
  },
  {
    name: "EMBEDDER",
    default: "offline",
    description: "Embedder of new knowledge bases: offline (built in) or openai (EMBEDDINGS_*)"
  },
  {
    name: "EMBEDDINGS_URL",
    default: "https://api.openai.com/v1",
    description: "OpenAI-compatible embeddings API base URL"
  },
  { name: "EMBEDDINGS_MODEL", default: "text-embedding-3-small", description: "Embeddings model name" },
  {
    name: "EMBEDDINGS_API_KEY",
    default: undefined,
    description: "Bearer key of the embeddings API (omitted when unset)"
  },
  {
    name: "EMBEDDINGS_DIMENSIONS",
    default: undefined,
    description: "Vector length asked of the embeddings API; required for models other than OpenAI's text-embedding-*"
  },
  {
    name: "KB_SCORE_THRESHOLD",
    default: "0.2",
    description: "retrievalScoreThreshold of knowledge bases created without one (0 to 1)"
  },
  {
    name: "KB_URL_ALLOWLIST",
    default: undefined,
    description: "Private hosts URL sources may fetch anyway: hostnames, addresses or CIDR ranges, comma-separated"
  },
  {
    name: "MEDIA_PORT",
    default: "3004",
    description:
      "runner and start roles: port of the media server carriers stream calls' audio to (Twilio at /media/twilio, " +
      "Telnyx at /media/telnyx; 0 picks a free one)"
  },
  {
    name: "MEDIA_PUBLIC_URL",
    default: undefined,
    description:
      "ws:// or wss:// origin carriers reach this process's media server at, e.g. wss://runner-1.example.com; every " +
      "runner its own (default ws://<HOST>:<MEDIA_PORT>, a runner's ws://<RUNNER_HOST>:<MEDIA_PORT>)"
  },
  {
    name: "RECORDINGS_DIR",
    default: undefined,
    description:
      "Where call recordings are written (default DATA_DIR/recordings); every process that runs calls or serves the " +
      "API must see the same directory"
  },
  {
    name: "RECORDING_RETENTION_DAYS",
    default: "30",
    description: "Call recordings older than this many days are deleted (their files and records), checked every hour"
  },
  {
    name: "VOICE_STT",
    default: undefined,
    description:
      "Speech-to-text of agents that choose none: deepgram, openai or none (default: the first configured, else none)"
  },
  {
    name: "VOICE_LLM",
    default: undefined,
    description:
      "Language model of agents that choose none: openai or offline (default: openai when LLM_* is set, else offline)"
  },
  {
    name: "VOICE_TTS",
    default: undefined,
    description:
      "Text-to-speech of agents that choose none: elevenlabs, openai or flite (default: the first configured, else " +
      "flite, built in)"
  },
  {
    name: "DEEPGRAM_API_KEY",
    default: undefined,
    description: "Deepgram key: enables the deepgram speech-to-text (streaming)"
  },
  {
    name: "DEEPGRAM_URL",
    default: "wss://api.deepgram.com/v1/listen",
    description: "Deepgram's streaming listen endpoint"
  },
  { name: "DEEPGRAM_MODEL", default: "nova-3", description: "Deepgram model of agents that name none" },
  {
    name: "TRANSCRIPTION_URL",
    default: undefined,
    description:
      "OpenAI-compatible transcription API base URL (a self-hosted Whisper server, or https://api.openai.com/v1); " +
      "set, or with TRANSCRIPTION_API_KEY, enables the openai speech-to-text"
  },
  {
    name: "TRANSCRIPTION_API_KEY",
    default: undefined,
    description: "Bearer key of the transcription API (omitted when unset)"
  },
  { name: "TRANSCRIPTION_MODEL", default: "whisper-1", description: "Transcription model of agents that name none" },
  {
    name: "LLM_URL",
    default: undefined,
    description: "OpenAI-compatible chat completions base URL (OpenAI, Groq, vLLM, Ollama, llama.cpp: e.g. " +
      "http://localhost:11434/v1); set, or with LLM_API_KEY (then OpenAI's), enables the openai language model"
  },
  {
    name: "LLM_API_KEY",
    default: undefined,
    description: "Bearer key of the chat completions API (omitted when unset)"
  },
  { name: "LLM_MODEL", default: "gpt-4o-mini", description: "Model of agents that name none" },
  {
    name: "ELEVENLABS_API_KEY",
    default: undefined,
    description: "ElevenLabs key: enables the elevenlabs text-to-speech (streaming, μ-law 8 kHz)"
  },
  { name: "ELEVENLABS_URL", default: "wss://api.elevenlabs.io", description: "ElevenLabs API origin (its WebSocket)" },
  {
    name: "ELEVENLABS_VOICE",
    default: "21m00Tcm4TlvDq8ikWAM",
    description: "ElevenLabs voice id of agents that name none"
  },
  { name: "ELEVENLABS_MODEL", default: "eleven_flash_v2_5", description: "ElevenLabs model of agents that name none" },
  {
    name: "SPEECH_URL",
    default: undefined,
    description:
      "OpenAI-compatible speech API base URL (/audio/speech); set, or with SPEECH_API_KEY (then OpenAI's), enables " +
      "the openai text-to-speech"
  },
  { name: "SPEECH_API_KEY", default: undefined, description: "Bearer key of the speech API (omitted when unset)" },
  { name: "SPEECH_MODEL", default: "gpt-4o-mini-tts", description: "Speech model of agents that name none" },
  { name: "SPEECH_VOICE", default: "alloy", description: "Speech API voice of agents that name none" }
] as const satisfies ReadonlyArray<Variable>

export type VariableName = (typeof Variables)[number]["name"]

const defaultOf = (name: VariableName): string => Variables.find((v) => v.name === name)!.default!

const httpUrl = (name: VariableName) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      try {
        const url = new URL(raw)
        if (url.protocol === "http:" || url.protocol === "https:") return Either.right(raw.replace(/\/+$/, ""))
      } catch {
        // reported below
      }
      return Either.left(ConfigError.InvalidData([name], `expected an http(s) URL, got "${raw}"`))
    })
  )

const wsUrl = (name: VariableName) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      try {
        const url = new URL(raw)
        if (url.protocol === "ws:" || url.protocol === "wss:") return Either.right(raw.replace(/\/+$/, ""))
      } catch {
        // reported below
      }
      return Either.left(ConfigError.InvalidData([name], `expected a ws:// or wss:// URL, got "${raw}"`))
    })
  )

const databaseUrl = Config.redacted("DATABASE_URL").pipe(
  Config.mapOrFail((secret) => {
    const raw = Redacted.value(secret)
    try {
      const url = new URL(raw)
      if (url.protocol === "postgres:" || url.protocol === "postgresql:") return Either.right(secret)
    } catch {
      // reported below
    }
    return Either.left(ConfigError.InvalidData(["DATABASE_URL"], "expected a postgres:// or postgresql:// URL"))
  })
)

const jwtSecret = Config.redacted("JWT_SECRET").pipe(
  Config.mapOrFail((secret) =>
    Redacted.value(secret).length >= 32
      ? Either.right(secret)
      : Either.left(ConfigError.InvalidData(["JWT_SECRET"], "must be at least 32 characters"))
  )
)

const port = (name: VariableName) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const n = Number(raw)
      return /^\d{1,5}$/.test(raw.trim()) && n <= 65535
        ? Either.right(n)
        : Either.left(
          ConfigError.InvalidData([], `expected a port number from 0 to 65535 (0 picks a free one), got "${raw}"`)
        )
    }),
    Config.withDefault(Number(defaultOf(name)))
  )

const logLevels: Record<string, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
  off: LogLevel.None
}

const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((raw) => {
    const level = logLevels[raw.trim().toLowerCase()]
    return level === undefined
      ? Either.left(ConfigError.InvalidData([], `expected one of ${Object.keys(logLevels).join(", ")}, got "${raw}"`))
      : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)

/** A whole number within bounds. */
/**
 * The address replicas of one container image can advertise without per-replica configuration
 * (`RUNNER_HOST=auto`): the first non-internal IPv4 address of this machine.
 */
export const firstExternalIPv4 = (
  interfaces: NodeJS.Dict<Array<os.NetworkInterfaceInfo>> = os.networkInterfaces()
): string | undefined => {
  for (const name of Object.keys(interfaces).sort()) {
    for (const info of interfaces[name] ?? []) {
      if (info.family === "IPv4" && !info.internal) return info.address
    }
  }
  return undefined
}

const wholeNumber = (name: VariableName, min: number, max: number) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const n = Number(raw)
      return /^\d+$/.test(raw.trim()) && n >= min && n <= max
        ? Either.right(n)
        : Either.left(ConfigError.InvalidData([], `expected a whole number from ${min} to ${max}, got "${raw}"`))
    })
  )

const integer = (name: VariableName, min: number, max: number) =>
  wholeNumber(name, min, max).pipe(Config.withDefault(Number(defaultOf(name))))

const duration = (name: VariableName, minMillis: number) =>
  Config.duration(name).pipe(
    Config.mapOrFail((d) =>
      Duration.toMillis(d) >= minMillis
        ? Either.right(d)
        : Either.left(
          ConfigError.InvalidData([name], `must be at least ${Duration.format(Duration.millis(minMillis))}`)
        )
    ),
    Config.withDefault(Duration.decode(defaultOf(name) as Duration.DurationInput))
  )

const SIZE_UNITS: Record<string, number> = { "": 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }

/** A size in bytes: a whole number, optionally with B, KiB, MiB or GiB. */
export const parseSize = (raw: string): number | undefined => {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(raw)
  const unit = match === null ? undefined : SIZE_UNITS[match[2]!.toLowerCase()]
  return match === null || unit === undefined ? undefined : Number(match[1]) * unit
}

const size = (name: VariableName, min: number, max: number) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const bytes = parseSize(raw)
      return bytes !== undefined && bytes >= min && bytes <= max
        ? Either.right(bytes)
        : Either.left(
          ConfigError.InvalidData(
            [],
            `expected a size from ${min} to ${max} bytes (a number, or with KiB, MiB, GiB), got "${raw}"`
          )
        )
    }),
    Config.withDefault(parseSize(defaultOf(name))!)
  )

const perSecond = (name: VariableName) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const n = Number(raw)
      return /^\s*\d+(\.\d+)?\s*$/.test(raw) && n <= 1_000_000
        ? Either.right(n)
        : Either.left(
          ConfigError.InvalidData([], `expected a rate from 0 to 1000000 per second (0: off), got "${raw}"`)
        )
    }),
    Config.withDefault(Number(defaultOf(name)))
  )

/** Exact origins as browsers send them (`scheme://host[:port]`), or `*`. */
export const parseOrigins = (raw: string): Either.Either<ReadonlyArray<string> | "*", string> => {
  if (raw.trim() === "*") return Either.right("*")
  const origins: Array<string> = []
  for (const entry of raw.split(",").map((o) => o.trim()).filter((o) => o !== "")) {
    let url: URL | undefined
    try {
      url = new URL(entry)
    } catch {
      url = undefined
    }
    if (
      url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" ||
      url.search !== "" || url.hash !== "" || url.username !== "" || /\/\/.*\/./.test(entry)
    ) {
      return Either.left(`expected origins such as https://app.example.com (no path), or *; got "${entry}"`)
    }
    origins.push(url.origin)
  }
  return origins.length === 0 ? Either.left("expected at least one origin, or *") : Either.right(origins)
}

const rateLimit = (perSecondName: VariableName, burstName: VariableName) =>
  Config.all({ perSecond: perSecond(perSecondName), burst: integer(burstName, 1, 1_000_000) }).pipe(
    Config.map((limit) => (limit.perSecond === 0 ? undefined : limit))
  )

const carrier = (name: VariableName) =>
  Config.literal("simulated", "twilio", "telnyx")(name).pipe(Config.withDefault("simulated" as const))

/** An Ed25519 public key as Telnyx shows it (base64), or DER or PEM. */
const ed25519PublicKey = (name: VariableName) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) =>
      Either.mapLeft(parsePublicKey(raw), (message) => ConfigError.InvalidData([name], message))
    )
  )

export const AppConfig = Config.all({
  port: port("PORT"),
  platformCorePort: port("PLATFORM_CORE_PORT"),
  commsPort: port("COMMS_PORT"),
  campaignPort: port("CAMPAIGN_PORT"),
  host: Config.nonEmptyString("HOST").pipe(Config.withDefault(defaultOf("HOST"))),
  dataDir: Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault(defaultOf("DATA_DIR"))),
  databaseUrl: Config.option(databaseUrl),
  jwtSecret: Config.option(jwtSecret),
  jwtTtl: Config.duration("JWT_TTL").pipe(
    Config.mapOrFail((d) =>
      Duration.toMillis(d) >= 60_000
        ? Either.right(d)
        : Either.left(ConfigError.InvalidData(["JWT_TTL"], "must be at least one minute"))
    ),
    Config.withDefault(Duration.hours(12))
  ),
  logLevel,
  telemetry: Config.all({
    metricsPort: port("METRICS_PORT"),
    otlpEndpoint: Config.option(httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT")),
    serviceName: Config.option(Config.nonEmptyString("OTEL_SERVICE_NAME"))
  }),
  publicUrl: Config.option(httpUrl("PUBLIC_URL")),
  platformCoreUrl: Config.option(httpUrl("PLATFORM_CORE_URL")),
  commsUrl: Config.option(httpUrl("COMMS_URL")),
  campaignUrl: Config.option(httpUrl("CAMPAIGN_URL")),
  protection: Config.all({
    apiKeyRate: rateLimit("RATE_LIMIT_PER_SECOND", "RATE_LIMIT_BURST"),
    ipRate: rateLimit("RATE_LIMIT_IP_PER_SECOND", "RATE_LIMIT_IP_BURST"),
    trustedProxyHops: integer("TRUSTED_PROXY_HOPS", 0, 10),
    // the services read no more than MAX_READ_BODY_BYTES of a body whole, whatever the gateway lets through
    maxBodyBytes: size("MAX_BODY_SIZE", 1024, MAX_READ_BODY_BYTES),
    maxUploadBytes: size("MAX_UPLOAD_SIZE", 1024, 1024 ** 3),
    corsOrigins: Config.option(
      Config.string("CORS_ALLOWED_ORIGINS").pipe(
        Config.mapOrFail((raw) =>
          Either.mapLeft(parseOrigins(raw), (message) => ConfigError.InvalidData(["CORS_ALLOWED_ORIGINS"], message))
        )
      )
    ).pipe(Config.map(Option.getOrUndefined))
  }).pipe(Config.map((p): ProtectionOptions => p)),
  cluster: Config.all({
    shardsPerGroup: integer("SHARDS_PER_GROUP", 1, 10_000),
    runnerHost: Config.nonEmptyString("RUNNER_HOST").pipe(
      Config.withDefault(defaultOf("RUNNER_HOST")),
      Config.mapOrFail((host) => {
        if (host !== "auto") return Either.right(host)
        const address = firstExternalIPv4()
        return address === undefined
          ? Either.left(
            ConfigError.InvalidData(["RUNNER_HOST"], "is auto, but this machine has no non-loopback IPv4 address")
          )
          : Either.right(address)
      })
    ),
    runnerPort: integer("RUNNER_PORT", 1, 65_535),
    listenHost: Config.option(Config.nonEmptyString("RUNNER_LISTEN_HOST")),
    shardLockRefresh: duration("SHARD_LOCK_REFRESH", 1000),
    shardLockExpiration: duration("SHARD_LOCK_EXPIRATION", 3000),
    entityMessagePoll: duration("ENTITY_MESSAGE_POLL", 100),
    runnerHealthCheck: duration("RUNNER_HEALTH_CHECK_INTERVAL", 100)
  }),
  calls: Config.all({
    maxConcurrentCalls: integer("MAX_CONCURRENT_CALLS", 1, 100_000),
    maxCallDuration: duration("MAX_CALL_DURATION", 10_000),
    dialTimeout: duration("DIAL_TIMEOUT", 5_000)
  }),
  rates: Config.all({
    voicePerMinute: integer("RATE_VOICE_PER_MINUTE", 0, 1_000_000),
    webPerMinute: Config.option(wholeNumber("RATE_WEB_PER_MINUTE", 0, 1_000_000)).pipe(
      Config.map(Option.getOrUndefined)
    ),
    billingIncrementSeconds: integer("RATE_BILLING_INCREMENT", 1, 3600),
    smsPerSegment: integer("RATE_SMS_PER_SEGMENT", 0, 1_000_000),
    chatAppPerMessage: integer("RATE_CHATAPP_PER_MESSAGE", 0, 1_000_000),
    reservationChunkSeconds: integer("RATE_RESERVATION_CHUNK", 30, 86_400)
  }),
  simulatorRingMillis: integer("SIMULATOR_RING_MS", 0, 600_000),
  simulatorDialLog: Config.option(Config.nonEmptyString("SIMULATOR_DIAL_LOG")),
  failpoints: Config.string("FAILPOINTS").pipe(
    Config.withDefault(""),
    Config.mapOrFail((value) => {
      const parsed = parseFailpoints(value)
      return typeof parsed === "string"
        ? Either.left(ConfigError.InvalidData(["FAILPOINTS"], parsed))
        : Either.right(parsed)
    })
  ),
  voiceNumberCps: integer("VOICE_NUMBER_CPS", 1, 1000),
  supervisorInterval: duration("SUPERVISOR_INTERVAL", 500),
  clusterStorage: Config.all({
    retention: duration("CLUSTER_STORAGE_RETENTION", 60_000),
    interval: duration("CLUSTER_STORAGE_CLEANUP_INTERVAL", 1_000)
  }),
  shutdownGrace: duration("SHUTDOWN_GRACE", 0),
  httpTimeouts: Config.all({
    headers: duration("HTTP_HEADERS_TIMEOUT", 1000),
    body: duration("HTTP_BODY_TIMEOUT", 1000),
    request: duration("HTTP_REQUEST_TIMEOUT", 1000),
    keepAlive: duration("HTTP_KEEP_ALIVE_TIMEOUT", 1000)
  }),
  telephony: Config.all({
    PROVIDER_A: carrier("TELEPHONY_PROVIDER_A"),
    PROVIDER_B: carrier("TELEPHONY_PROVIDER_B"),
    PROVIDER_C: carrier("TELEPHONY_PROVIDER_C")
  }),
  twilio: Config.all({
    apiUrl: httpUrl("TWILIO_API_URL").pipe(Config.withDefault(defaultOf("TWILIO_API_URL"))),
    accountSid: Config.option(Config.nonEmptyString("TWILIO_ACCOUNT_SID")),
    authToken: Config.option(Config.redacted("TWILIO_AUTH_TOKEN"))
  }),
  telnyx: Config.all({
    apiUrl: httpUrl("TELNYX_API_URL").pipe(Config.withDefault(defaultOf("TELNYX_API_URL"))),
    apiKey: Config.option(Config.redacted(Config.nonEmptyString("TELNYX_API_KEY"))),
    connectionId: Config.option(Config.nonEmptyString("TELNYX_CONNECTION_ID")),
    publicKey: Config.option(ed25519PublicKey("TELNYX_PUBLIC_KEY"))
  }),
  messaging: Config.all({
    chatApp: Config.literal("simulated", "whatsapp")("CHATAPP_PROVIDER").pipe(Config.withDefault("simulated" as const)),
    whatsappApiUrl: httpUrl("WHATSAPP_API_URL").pipe(Config.withDefault(defaultOf("WHATSAPP_API_URL"))),
    whatsappApiVersion: Config.string("WHATSAPP_API_VERSION").pipe(
      Config.validate({
        message: "expected a Graph API version such as v21.0",
        validation: (v) => /^v\d+\.\d+$/.test(v)
      }),
      Config.withDefault(defaultOf("WHATSAPP_API_VERSION"))
    ),
    whatsappAccessToken: Config.option(Config.redacted("WHATSAPP_ACCESS_TOKEN")),
    appSecret: Config.option(Config.redacted(Config.nonEmptyString("CHATAPP_APP_SECRET"))),
    defaultSmsProvider: Config.literal("PROVIDER_A", "PROVIDER_B", "PROVIDER_C")("SMS_DEFAULT_PROVIDER").pipe(
      Config.withDefault("PROVIDER_A" as const)
    ),
    PROVIDER_A: Config.literal("simulated", "twilio")("SMS_PROVIDER_A").pipe(Config.withDefault("simulated" as const)),
    PROVIDER_B: Config.literal("simulated", "vonage")("SMS_PROVIDER_B").pipe(Config.withDefault("simulated" as const)),
    PROVIDER_C: Config.literal("simulated", "azure")("SMS_PROVIDER_C").pipe(Config.withDefault("simulated" as const)),
    vonageApiUrl: httpUrl("VONAGE_API_URL").pipe(Config.withDefault(defaultOf("VONAGE_API_URL"))),
    vonageApiKey: Config.option(Config.nonEmptyString("VONAGE_API_KEY")),
    vonageApiSecret: Config.option(Config.redacted("VONAGE_API_SECRET")),
    vonageDltEntityId: Config.option(Config.nonEmptyString("VONAGE_DLT_ENTITY_ID")),
    azureEndpoint: Config.option(httpUrl("AZURE_COMMUNICATION_ENDPOINT")),
    azureAccessKey: Config.option(Config.redacted("AZURE_COMMUNICATION_ACCESS_KEY"))
  }),
  recordings: Config.all({
    directory: Config.option(Config.nonEmptyString("RECORDINGS_DIR")),
    retentionDays: integer("RECORDING_RETENTION_DAYS", 1, 36_500)
  }),
  media: Config.all({
    port: port("MEDIA_PORT"),
    publicUrl: Config.option(wsUrl("MEDIA_PUBLIC_URL"))
  }),
  voice: Config.all({
    stt: Config.option(Config.literal("deepgram", "openai", "none")("VOICE_STT")),
    llm: Config.option(Config.literal("openai", "offline")("VOICE_LLM")),
    tts: Config.option(Config.literal("elevenlabs", "openai", "flite")("VOICE_TTS")),
    deepgramApiKey: Config.option(Config.redacted(Config.nonEmptyString("DEEPGRAM_API_KEY"))),
    deepgramUrl: wsUrl("DEEPGRAM_URL").pipe(Config.withDefault(defaultOf("DEEPGRAM_URL"))),
    deepgramModel: Config.nonEmptyString("DEEPGRAM_MODEL").pipe(Config.withDefault(defaultOf("DEEPGRAM_MODEL"))),
    transcriptionUrl: Config.option(httpUrl("TRANSCRIPTION_URL")),
    transcriptionApiKey: Config.option(Config.redacted(Config.nonEmptyString("TRANSCRIPTION_API_KEY"))),
    transcriptionModel: Config.nonEmptyString("TRANSCRIPTION_MODEL").pipe(
      Config.withDefault(defaultOf("TRANSCRIPTION_MODEL"))
    ),
    llmUrl: Config.option(httpUrl("LLM_URL")),
    llmApiKey: Config.option(Config.redacted(Config.nonEmptyString("LLM_API_KEY"))),
    llmModel: Config.nonEmptyString("LLM_MODEL").pipe(Config.withDefault(defaultOf("LLM_MODEL"))),
    elevenLabsApiKey: Config.option(Config.redacted(Config.nonEmptyString("ELEVENLABS_API_KEY"))),
    elevenLabsUrl: wsUrl("ELEVENLABS_URL").pipe(Config.withDefault(defaultOf("ELEVENLABS_URL"))),
    elevenLabsVoice: Config.nonEmptyString("ELEVENLABS_VOICE").pipe(Config.withDefault(defaultOf("ELEVENLABS_VOICE"))),
    elevenLabsModel: Config.nonEmptyString("ELEVENLABS_MODEL").pipe(Config.withDefault(defaultOf("ELEVENLABS_MODEL"))),
    speechUrl: Config.option(httpUrl("SPEECH_URL")),
    speechApiKey: Config.option(Config.redacted(Config.nonEmptyString("SPEECH_API_KEY"))),
    speechModel: Config.nonEmptyString("SPEECH_MODEL").pipe(Config.withDefault(defaultOf("SPEECH_MODEL"))),
    speechVoice: Config.nonEmptyString("SPEECH_VOICE").pipe(Config.withDefault(defaultOf("SPEECH_VOICE")))
  }),
  knowledge: Config.all({
    chromaUrl: Config.option(httpUrl("CHROMA_URL")),
    embedder: Config.literal("offline", "openai")("EMBEDDER").pipe(Config.withDefault("offline" as const)),
    embeddingsUrl: httpUrl("EMBEDDINGS_URL").pipe(Config.withDefault(defaultOf("EMBEDDINGS_URL"))),
    embeddingsModel: Config.nonEmptyString("EMBEDDINGS_MODEL").pipe(Config.withDefault(defaultOf("EMBEDDINGS_MODEL"))),
    embeddingsApiKey: Config.option(Config.redacted(Config.nonEmptyString("EMBEDDINGS_API_KEY"))),
    embeddingsDimensions: Config.option(
      Config.integer("EMBEDDINGS_DIMENSIONS").pipe(
        Config.validate({
          message: "expected a whole number from 1 to 16384",
          validation: (n) => n >= 1 && n <= 16_384
        })
      )
    ),
    scoreThreshold: Config.number("KB_SCORE_THRESHOLD").pipe(
      Config.validate({
        message: "expected a number from 0 to 1",
        validation: (n) => Number.isFinite(n) && n >= 0 && n <= 1
      }),
      Config.withDefault(Number(defaultOf("KB_SCORE_THRESHOLD")))
    ),
    urlAllowList: Config.string("KB_URL_ALLOWLIST").pipe(
      Config.mapOrFail((raw) =>
        Either.mapLeft(parseAllowList(raw), (message) => ConfigError.InvalidData(["KB_URL_ALLOWLIST"], message))
      ),
      Config.withDefault([] as ReadonlyArray<string>)
    )
  })
}).pipe(
  // adapters chosen without their credentials: every missing one reported at once
  Config.mapOrFail((c) => {
    const missing: Array<ConfigError.ConfigError> = []
    const need = (when: boolean, name: string, message: string) => {
      if (when) missing.push(ConfigError.MissingData([name], message))
    }
    const twilio = Object.values(c.telephony).includes("twilio") || c.messaging.PROVIDER_A === "twilio"
    need(
      twilio && Option.isNone(c.twilio.accountSid),
      "TWILIO_ACCOUNT_SID",
      "required when a TELEPHONY_PROVIDER_* or SMS_PROVIDER_A is twilio"
    )
    need(
      twilio && Option.isNone(c.twilio.authToken),
      "TWILIO_AUTH_TOKEN",
      "required when a TELEPHONY_PROVIDER_* or SMS_PROVIDER_A is twilio"
    )
    const telnyx = Object.values(c.telephony).includes("telnyx")
    need(telnyx && Option.isNone(c.telnyx.apiKey), "TELNYX_API_KEY", "required when a TELEPHONY_PROVIDER_* is telnyx")
    need(
      telnyx && Option.isNone(c.telnyx.connectionId),
      "TELNYX_CONNECTION_ID",
      "required when a TELEPHONY_PROVIDER_* is telnyx"
    )
    need(
      telnyx && Option.isNone(c.telnyx.publicKey),
      "TELNYX_PUBLIC_KEY",
      "required when a TELEPHONY_PROVIDER_* is telnyx"
    )
    const whatsapp = c.messaging.chatApp === "whatsapp"
    need(
      whatsapp && Option.isNone(c.messaging.whatsappAccessToken),
      "WHATSAPP_ACCESS_TOKEN",
      "required when CHATAPP_PROVIDER is whatsapp"
    )
    const vonage = c.messaging.PROVIDER_B === "vonage"
    need(vonage && Option.isNone(c.messaging.vonageApiKey), "VONAGE_API_KEY", "required when SMS_PROVIDER_B is vonage")
    need(
      vonage && Option.isNone(c.messaging.vonageApiSecret),
      "VONAGE_API_SECRET",
      "required when SMS_PROVIDER_B is vonage"
    )
    const azure = c.messaging.PROVIDER_C === "azure"
    need(
      azure && Option.isNone(c.messaging.azureEndpoint),
      "AZURE_COMMUNICATION_ENDPOINT",
      "required when SMS_PROVIDER_C is azure"
    )
    need(
      azure && Option.isNone(c.messaging.azureAccessKey),
      "AZURE_COMMUNICATION_ACCESS_KEY",
      "required when SMS_PROVIDER_C is azure"
    )
    const v = c.voice
    const chosen = (option: Option.Option<string>, value: string) => Option.getOrUndefined(option) === value
    need(
      chosen(v.stt, "deepgram") && Option.isNone(v.deepgramApiKey),
      "DEEPGRAM_API_KEY",
      "required when VOICE_STT is deepgram"
    )
    need(
      chosen(v.stt, "openai") && Option.isNone(v.transcriptionUrl) && Option.isNone(v.transcriptionApiKey),
      "TRANSCRIPTION_URL",
      "required (or TRANSCRIPTION_API_KEY) when VOICE_STT is openai"
    )
    need(
      chosen(v.llm, "openai") && Option.isNone(v.llmUrl) && Option.isNone(v.llmApiKey),
      "LLM_URL",
      "required (or LLM_API_KEY) when VOICE_LLM is openai"
    )
    need(
      chosen(v.tts, "elevenlabs") && Option.isNone(v.elevenLabsApiKey),
      "ELEVENLABS_API_KEY",
      "required when VOICE_TTS is elevenlabs"
    )
    need(
      chosen(v.tts, "openai") && Option.isNone(v.speechUrl) && Option.isNone(v.speechApiKey),
      "SPEECH_URL",
      "required (or SPEECH_API_KEY) when VOICE_TTS is openai"
    )
    const k = c.knowledge
    need(
      k.embedder === "openai" && Option.isNone(k.embeddingsDimensions) &&
        dimensionsOf({ model: k.embeddingsModel, dimensions: undefined }) === undefined,
      "EMBEDDINGS_DIMENSIONS",
      `required when EMBEDDER is openai with a model whose vector length is not known (${k.embeddingsModel})`
    )
    return missing.length === 0 ? Either.right(c) : Either.left(missing.reduce((a, b) => ConfigError.And(a, b)))
  })
)

export type AppConfig = Config.Config.Success<typeof AppConfig>

// Some combinators prefix the variable name to a path that already holds it.
const line = (path: ReadonlyArray<string>, message: string) =>
  `${path.filter((segment, i) => segment !== path[i - 1]).join(".")}: ${message}`

/** One line per problem, each naming its variable. */
export const describeConfigError = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    orCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [line(path, message)],
    missingDataCase: (_, path, message) => [line(path, message)],
    sourceUnavailableCase: (_, path, message) => [line(path, message)],
    unsupportedCase: (_, path, message) => [line(path, message)]
  })

export class InvalidConfiguration extends Data.TaggedError("InvalidConfiguration")<{
  readonly problems: ReadonlyArray<string>
}> {
  override get message(): string {
    return `Invalid configuration:\n${this.problems.map((p) => `  - ${p}`).join("\n")}`
  }
}

/** Reads and validates the whole configuration, failing with every problem at once. */
export const load = AppConfig.pipe(
  Effect.mapError((error) => new InvalidConfiguration({ problems: [...new Set(describeConfigError(error))] }))
)

export const publicUrlOf = (config: AppConfig): string =>
  Option.getOrElse(config.publicUrl, () => `http://localhost:${config.port}`)

/**
 * The JWT secret: from `JWT_SECRET`, or (embedded single-process mode only) generated once and
 * kept in `DATA_DIR/jwt-secret` so sessions survive restarts.
 */
export const resolveJwtSecret = (config: AppConfig, options: { readonly mayGenerate: boolean }) =>
  Option.match(config.jwtSecret, {
    onSome: Effect.succeed,
    onNone: () =>
      options.mayGenerate
        ? Effect.sync(() => {
          const file = path.join(config.dataDir, "jwt-secret")
          fs.mkdirSync(config.dataDir, { recursive: true })
          if (!fs.existsSync(file)) {
            fs.writeFileSync(file, crypto.randomBytes(48).toString("base64url"), { mode: 0o600, flag: "wx" })
          }
          return Redacted.make(fs.readFileSync(file, "utf8").trim())
        })
        : Effect.fail(
          new InvalidConfiguration({
            problems: [
              "JWT_SECRET: required for this role (every service must verify the same session tokens)"
            ]
          })
        )
  })

export const defaultLogLevel = LogLevel.Info
