/**
 * One trace across the production topology's processes: the gateway, the comms service and the
 * runner that owns the call's entity, each exporting to a collector on loopback, with the call
 * dialed through the Twilio adapter (a fake of its API on loopback). PostgreSQL only: runners share
 * shards through it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ClusterLocal from "@voiceagent/devtools/ClusterLocal"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import { scratchDirectory, startedOrDie } from "./ClusterLocalTesting.js"
import * as FakeOtlpCollector from "./FakeOtlpCollector.js"
import { callReady, post, waitUntil } from "./Http.js"

const postgres = await TestDatabase.reachablePostgresUrl()
if (postgres === undefined) {
  console.warn(`distributed tracing test SKIPPED: ${TestDatabase.postgresOnlySkipReason()}`)
}

describe.skipIf(postgres === undefined)("traces across processes (PostgreSQL)", () => {
  it.scopedLive(
    "gateway → comms → the runner's LiveCall entity → the carrier's API, one trace, three services",
    () =>
      Effect.gen(function*() {
        const collector = yield* FakeOtlpCollector.make
        const twilio = yield* FakeTwilio.make()
        const logsDir = yield* scratchDirectory("vap-tracing-")
        const database = yield* TestDatabase.scratchPostgresDatabase(postgres!)
        const cluster = yield* startedOrDie(ClusterLocal.start({
          databaseUrl: database.url,
          logsDir,
          runners: 1,
          chroma: "none",
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
            OTEL_BSP_SCHEDULE_DELAY: "100",
            TELEPHONY_PROVIDER_B: "twilio",
            TWILIO_API_URL: twilio.url,
            TWILIO_ACCOUNT_SID: twilio.accountSid,
            TWILIO_AUTH_TOKEN: twilio.authToken
          }
        }))
        const gateway = `${cluster.gatewayUrl!}/api/v1`
        const { agentId, key, voiceNumberId } = yield* callReady(gateway, "PROVIDER_B")
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: key,
          json: { agentId, voiceNumberId, toNumber: "+14155550123" }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        yield* waitUntil(
          Effect.sync(() => twilio.calls().filter((c) => c.method === "POST")),
          (c) => c.length > 0,
          "the dial",
          20
        )

        const isDial = (s: FakeOtlpCollector.CollectedSpan) =>
          s.name === "http.client POST" && String(s.attributes["url.full"] ?? "").startsWith(twilio.url)
        /** From the carrier's span up to the first ancestor not (yet) exported. */
        const chainOf = (all: ReadonlyArray<FakeOtlpCollector.CollectedSpan>) => {
          const dial = all.find(isDial)
          if (dial === undefined) return []
          const byId = new Map(all.filter((s) => s.traceId === dial.traceId).map((s) => [s.spanId, s]))
          const chain: Array<FakeOtlpCollector.CollectedSpan> = []
          for (
            let at: FakeOtlpCollector.CollectedSpan | undefined = dial;
            at !== undefined;
            at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId)
          ) {
            chain.unshift(at)
          }
          return chain
        }
        // each process exports in its own batches: wait until every ancestor has arrived
        let chain = chainOf(collector.spans())
        for (
          const deadline = performance.now() + 60_000;
          (chain.length === 0 || chain[0]!.parentSpanId !== undefined) && performance.now() < deadline;
        ) {
          yield* Effect.sleep("100 millis")
          chain = chainOf(collector.spans())
        }
        assert.isAbove(chain.length, 0, "the carrier's span was exported (within 60 s)")
        const described = chain.map((s) => `${s.service}: ${s.name}`).join(" > ")
        // the chain reaches the trace's root: the gateway's server span for the request
        assert.isUndefined(chain[0]!.parentSpanId, described)
        assert.deepInclude(chain[0]!, { service: "voiceagent-gateway", name: "http.server POST" }, described)
        assert.strictEqual(chain[0]!.attributes["url.path"], "/api/v1/channels/voice/call", described)
        const services = [...new Set(chain.map((s) => s.service))]
        assert.deepStrictEqual(services, ["voiceagent-gateway", "voiceagent-comms", "voiceagent-runner"], described)
        assert.isTrue(
          chain.some((s) =>
            s.service === "voiceagent-runner" && s.name.includes("LiveCall") && s.name.includes("Start")
          ),
          described
        )
        assert.strictEqual(chain.at(-1)!.service, "voiceagent-runner", "the carrier is called from the runner")
      }),
    { timeout: 180_000 }
  )
})
