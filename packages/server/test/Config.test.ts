import { assert, describe, it } from "@effect/vitest"
import * as Config from "@voiceagent/server/Config"
import { messageSenders, nodeOptions } from "@voiceagent/server/Roles"
import { type Cause, ConfigProvider, Duration, Effect, Exit, LogLevel, Option, Redacted } from "effect"
import type * as os from "node:os"

const load = (env: Record<string, string>) =>
  Config.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

const problemsOf = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(load(env))
    assert.isTrue(Exit.isFailure(exit), "expected the configuration to be refused")
    const error = Exit.isFailure(exit) ? (exit.cause as Cause.Fail<Config.InvalidConfiguration>).error : undefined
    return error!.problems
  })

describe("configuration", () => {
  it.effect("has working defaults for every variable", () =>
    Effect.gen(function*() {
      const config = yield* load({})
      assert.deepStrictEqual(
        [config.port, config.platformCorePort, config.commsPort, config.campaignPort],
        [3000, 3001, 3002, 3003]
      )
      assert.strictEqual(config.dataDir, "./.data")
      assert.isTrue(Option.isNone(config.databaseUrl))
      assert.isTrue(Option.isNone(config.jwtSecret))
      assert.strictEqual(Duration.toHours(config.jwtTtl), 12)
      assert.deepStrictEqual(config.logLevel, LogLevel.Info)
      assert.strictEqual(Config.publicUrlOf(config), "http://localhost:3000")
    }))

  it.effect("reads every variable", () =>
    Effect.gen(function*() {
      const config = yield* load({
        PORT: "8080",
        PLATFORM_CORE_PORT: "8081",
        COMMS_PORT: "8082",
        CAMPAIGN_PORT: "8083",
        DATA_DIR: "/var/lib/vap",
        DATABASE_URL: "postgres://user:pw@db:5432/vap",
        JWT_SECRET: "x".repeat(40),
        JWT_TTL: "30 minutes",
        LOG_LEVEL: "debug",
        PUBLIC_URL: "https://voice.example.com/"
      })
      assert.strictEqual(config.port, 8080)
      assert.strictEqual(Redacted.value(Option.getOrThrow(config.databaseUrl)), "postgres://user:pw@db:5432/vap")
      assert.strictEqual(Duration.toMinutes(config.jwtTtl), 30)
      assert.deepStrictEqual(config.logLevel, LogLevel.Debug)
      assert.strictEqual(Config.publicUrlOf(config), "https://voice.example.com")
    }))

  it.effect("recordings: under DATA_DIR/recordings for 30 days unless told; a retention under a day is refused", () =>
    Effect.gen(function*() {
      const defaults = nodeOptions(yield* load({ DATA_DIR: "/var/lib/vap" })).runtime.recordings
      assert.deepStrictEqual(defaults, {
        directory: "/var/lib/vap/recordings",
        retentionDays: 30,
        sweepInterval: "1 hour"
      })
      const set = nodeOptions(yield* load({ RECORDINGS_DIR: "/mnt/recordings", RECORDING_RETENTION_DAYS: "7" })).runtime
        .recordings
      assert.deepInclude(set, { directory: "/mnt/recordings", retentionDays: 7 })
      for (const days of ["0", "-1", "1.5", "week"]) {
        const problems = yield* problemsOf({ RECORDING_RETENTION_DAYS: days })
        assert.strictEqual(problems.length, 1, problems.join())
        assert.match(problems[0]!, /^RECORDING_RETENTION_DAYS: /)
      }
    }))

  it.effect("RUNNER_HOST=auto advertises this machine's first non-loopback IPv4 address", () =>
    Effect.gen(function*() {
      const expected = Config.firstExternalIPv4()
      if (expected === undefined) {
        assert.deepStrictEqual(yield* problemsOf({ RUNNER_HOST: "auto" }), [
          "RUNNER_HOST: is auto, but this machine has no non-loopback IPv4 address"
        ])
      } else {
        assert.strictEqual((yield* load({ RUNNER_HOST: "auto" })).cluster.runnerHost, expected)
        assert.notStrictEqual(expected, "127.0.0.1")
      }
      assert.strictEqual((yield* load({ RUNNER_HOST: "runner-1.internal" })).cluster.runnerHost, "runner-1.internal")
      const lo = { address: "127.0.0.1", family: "IPv4", internal: true } as os.NetworkInterfaceInfo
      const v6 = { address: "fe80::1", family: "IPv6", internal: false } as os.NetworkInterfaceInfo
      const eth = { address: "10.0.0.7", family: "IPv4", internal: false } as os.NetworkInterfaceInfo
      assert.strictEqual(Config.firstExternalIPv4({ lo: [lo], eth0: [v6, eth] }), "10.0.0.7")
      assert.isUndefined(Config.firstExternalIPv4({ lo: [lo], eth0: [v6] }))
    }))

  it.effect("names each bad variable, all at once", () =>
    Effect.gen(function*() {
      const problems = yield* problemsOf({
        PORT: "not-a-port",
        COMMS_PORT: "70000",
        DATABASE_URL: "mysql://db/vap",
        JWT_SECRET: "short",
        LOG_LEVEL: "loud",
        PUBLIC_URL: "ftp://x",
        JWT_TTL: "5 seconds"
      })
      const text = problems.join("\n")
      for (const name of ["PORT", "COMMS_PORT", "DATABASE_URL", "JWT_SECRET", "LOG_LEVEL", "PUBLIC_URL", "JWT_TTL"]) {
        assert.isTrue(problems.some((p) => p.startsWith(`${name}:`)), `${name} missing from:\n${text}`)
      }
      assert.strictEqual(problems.length, 7)
    }))

  it.effect("messaging: simulated senders by default; a real adapter needs its credentials", () =>
    Effect.gen(function*() {
      const config = yield* load({})
      assert.deepStrictEqual(
        [
          config.messaging.chatApp,
          config.messaging.PROVIDER_A,
          config.messaging.PROVIDER_B,
          config.messaging.PROVIDER_C
        ],
        ["simulated", "simulated", "simulated", "simulated"]
      )
      assert.strictEqual(config.messaging.defaultSmsProvider, "PROVIDER_A")
      assert.isTrue(Option.isNone(config.messaging.appSecret))
      const problems = yield* problemsOf({
        CHATAPP_PROVIDER: "whatsapp",
        SMS_PROVIDER_A: "twilio",
        SMS_PROVIDER_B: "vonage",
        SMS_PROVIDER_C: "azure"
      })
      const names = problems.map((p) => p.split(":")[0])
      assert.deepStrictEqual(names, [
        "TWILIO_ACCOUNT_SID",
        "TWILIO_AUTH_TOKEN",
        "WHATSAPP_ACCESS_TOKEN",
        "VONAGE_API_KEY",
        "VONAGE_API_SECRET",
        "AZURE_COMMUNICATION_ENDPOINT",
        "AZURE_COMMUNICATION_ACCESS_KEY"
      ])
      assert.deepStrictEqual((yield* problemsOf({ SMS_DEFAULT_PROVIDER: "PROVIDER_D" })).map((p) => p.split(":")[0]), [
        "SMS_DEFAULT_PROVIDER"
      ])
      const configured = yield* load({
        CHATAPP_PROVIDER: "whatsapp",
        WHATSAPP_ACCESS_TOKEN: "EAAtoken",
        CHATAPP_APP_SECRET: "app-secret",
        SMS_PROVIDER_B: "vonage",
        VONAGE_API_KEY: "abcd1234",
        VONAGE_API_SECRET: "secret",
        SMS_DEFAULT_PROVIDER: "PROVIDER_B"
      })
      assert.strictEqual(Redacted.value(Option.getOrThrow(configured.messaging.appSecret)), "app-secret")
      assert.strictEqual(configured.messaging.defaultSmsProvider, "PROVIDER_B")
      const senders = messageSenders(configured)
      assert.isDefined(senders.chatApp)
      assert.deepStrictEqual(Object.keys(senders.sms ?? {}), ["PROVIDER_B"])
      // an empty secret is no secret: every notification is refused, none is checked against ""
      assert.isTrue(Option.isNone((yield* load({ CHATAPP_APP_SECRET: "" })).messaging.appSecret))
    }))

  it.effect("the JWT secret is generated once under DATA_DIR in embedded mode and required otherwise", () =>
    Effect.gen(function*() {
      const fs = yield* Effect.promise(() => import("node:fs"))
      const os = yield* Effect.promise(() => import("node:os"))
      const dir = fs.mkdtempSync(`${os.tmpdir()}/vap-config-`)
      const config = yield* load({ DATA_DIR: dir })
      const first = yield* Config.resolveJwtSecret(config, { mayGenerate: true })
      const second = yield* Config.resolveJwtSecret(config, { mayGenerate: true })
      assert.strictEqual(Redacted.value(first), Redacted.value(second))
      assert.isAtLeast(Redacted.value(first).length, 32)
      assert.strictEqual(fs.statSync(`${dir}/jwt-secret`).mode & 0o777, 0o600)
      const refused = yield* Effect.exit(Config.resolveJwtSecret(config, { mayGenerate: false }))
      assert.isTrue(Exit.isFailure(refused))
      fs.rmSync(dir, { recursive: true, force: true })
    }))
})
