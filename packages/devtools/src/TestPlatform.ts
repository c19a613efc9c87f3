/**
 * The whole HTTP platform in-process for tests: the three services and the gateway on free
 * loopback ports, a fresh migrated database (PGlite, or PostgreSQL when `DATABASE_URL` is set),
 * and the URLs to reach them over real sockets.
 */
import type { ServiceName } from "@voiceagent/domain/Gateway"
import { defaultProtection, type ProtectionOptions } from "@voiceagent/http/Gateway/Protection"
import { HttpTimeouts } from "@voiceagent/http/Serve"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import { defaultRuntimeOptions, type RuntimeOptions } from "@voiceagent/runner/Runtime"
import { PlatformSettings, type PlatformSettingsShape } from "@voiceagent/runner/Settings"
import { parsePublicKey } from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Embedded } from "@voiceagent/server/Roles"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"

export type PlatformUrls = Readonly<Record<ServiceName | "gateway", string>>

export class TestPlatformUrls extends Context.Tag("Testing/PlatformUrls")<TestPlatformUrls, PlatformUrls>() {}

export interface TestPlatformOptions {
  readonly jwtTtl?: Duration.DurationInput
  readonly jwtSecret?: string
  readonly publicUrl?: string
  /** Platform log lines below this level are dropped (default: warnings and errors only). */
  readonly logLevel?: LogLevel.LogLevel
  readonly settings?: PlatformSettingsShape
  readonly runtime?: Partial<RuntimeOptions>
  /** Fixed ports (default: free ones). */
  readonly ports?: Partial<Record<ServiceName | "gateway", number>>
  readonly twilioAuthToken?: string
  /** Verifies Telnyx's webhooks (TELNYX_PUBLIC_KEY, base64 as Telnyx shows it). */
  readonly telnyxPublicKey?: string
  /** Signs chat-app webhook notifications (CHATAPP_APP_SECRET). */
  readonly chatAppAppSecret?: string
  /** Exports traces to this OTLP/HTTP collector (OTEL_EXPORTER_OTLP_ENDPOINT; default: tracing off). */
  readonly otlpEndpoint?: string
  /** The gateway's protection (default: the production body limits, no rate limits, no CORS). */
  readonly protection?: Partial<ProtectionOptions>
  /** Every server's client timeouts (default: the production ones). */
  readonly httpTimeouts?: Partial<Context.Tag.Service<HttpTimeouts>>
}

/** Body limits as deployed; rate limits off, so tests may send as fast as they like. */
export const testProtection: ProtectionOptions = { ...defaultProtection, apiKeyRate: undefined, ipRate: undefined }

export const layer = (options: TestPlatformOptions = {}) =>
  Layer.effect(
    TestPlatformUrls,
    Effect.gen(function*() {
      const urls = yield* (yield* ServiceDirectory).all
      const get = (name: string) => urls.get(name) ?? Effect.runSync(Effect.dieMessage(`${name} did not start`))
      return {
        gateway: `${get("gateway")}/api/v1`,
        "platform-core": `${get("platform-core")}/api/v1`,
        comms: `${get("comms")}/api/v1`,
        campaign: `${get("campaign")}/api/v1`
      }
    })
  ).pipe(
    Layer.provideMerge(
      Embedded({
        host: "127.0.0.1",
        ports: { gateway: 0, "platform-core": 0, comms: 0, campaign: 0, ...options.ports },
        jwtSecret: Redacted.make(options.jwtSecret ?? crypto.randomBytes(32).toString("hex")),
        jwtTtl: Duration.decode(options.jwtTtl ?? "1 hour"),
        publicUrl: options.publicUrl,
        twilioAuthToken: Option.map(Option.fromNullable(options.twilioAuthToken), Redacted.make),
        telnyxPublicKey: Option.map(Option.fromNullable(options.telnyxPublicKey), (key) =>
          Either.getOrThrow(parsePublicKey(key))),
        chatAppAppSecret: Option.map(Option.fromNullable(options.chatAppAppSecret), Redacted.make),
        protection: { ...testProtection, ...options.protection }
      }, {
        settings: options.settings ?? PlatformSettings.defaults,
        cluster: { ...Cluster.defaultClusterOptions, shardsPerGroup: 8 },
        runtime: { ...defaultRuntimeOptions, simulator: { ringMillis: 200 }, ...options.runtime },
        telemetry: {
          otlpEndpoint: Option.fromNullable(options.otlpEndpoint),
          serviceName: Option.none(),
          metricsHost: "127.0.0.1",
          metricsPort: 0
        }
      })
    ),
    Layer.provideMerge(ServiceDirectory.make()),
    Layer.provide(
      Layer.effect(HttpTimeouts, Effect.map(HttpTimeouts, (defaults) => ({ ...defaults, ...options.httpTimeouts })))
    ),
    Layer.provideMerge(TestDatabase.layer),
    Layer.provide(Logger.minimumLogLevel(options.logLevel ?? LogLevel.Warning))
  )
